/// Everything an ``MPNSSimulator`` shares between its requests, guarded by the simulator's mutex.
struct MPNSSimulatorState {
    /// Channel id (the last path component) → state.
    var channels: [String: MPNSSimulator.ChannelState] = [:]
    var faults: HTTP1FaultPlan
    /// `https://127.0.0.1:<port>` once the simulator listens.
    var origin = ""

    init(seed: UInt64) {
        self.faults = HTTP1FaultPlan(seed: seed)
    }

    /// The channel URI of the channel `id`.
    func channelURI(id: String) -> String { "\(origin)\(MPNSSimulator.channelPath)\(id)" }
}
