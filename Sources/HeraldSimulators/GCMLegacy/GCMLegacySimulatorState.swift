/// Everything a ``GCMLegacySimulator`` shares between its requests, guarded by the simulator's mutex.
struct GCMLegacySimulatorState {
    var statistics = GCMLegacySimulator.Statistics()
    var accepted: [GCMLegacySimulator.Accepted] = []
    /// Registration id → what it answers.
    var tokens: [String: GCMLegacySimulator.TokenState] = [:]
    /// Registration id → how many messages were delivered to it.
    var deliveries: [String: Int] = [:]
    var faults: HTTP1FaultPlan

    init(seed: UInt64) {
        self.faults = HTTP1FaultPlan(seed: seed)
    }
}
