/// Everything an ``APNsSimulator`` shares between its connections, guarded by ``APNsSimulatorStore``'s mutex.
struct APNsSimulatorState {
    /// The counters; the connection counters among them stay 0 here, as ``SimulatorConnectionRegistry`` keeps
    /// them.
    var statistics = APNsSimulator.Statistics()
    var acceptedTokens: [String] = []
    var accepted: [APNsSimulator.Accepted] = []

    /// Lowercased device token → the millisecond timestamp reported with `410 Unregistered`.
    var unregistered: [String: Int64] = [:]
    /// Lowercased device tokens answered `400 BadDeviceToken`.
    var badTokens: Set<String> = []
    /// Lowercased device token → the bundle ids it is registered for; tokens absent here accept any topic.
    var tokenTopics: [String: Set<String>] = [:]

    var faults = APNsSimulator.Faults.none
    /// Request number (1-based) → what that request gets.
    var scripted: [Int: APNsSimulator.Injection] = [:]
    /// What the next requests get, in order, when they have no entry in `scripted`.
    var queued: [APNsSimulator.Injection] = []
    var generator: SeededRandomNumberGenerator

    /// The team's distinct accepted provider tokens with the time (seconds since 1970) each was first used, for
    /// `TooManyProviderTokenUpdates`.
    var providerTokens: [(token: String, firstSeen: Double)] = []

    init(seed: UInt64) {
        self.generator = SeededRandomNumberGenerator(seed: seed)
    }
}
