/// Everything an ``APNsSimulator`` shares between its connections, guarded by ``APNsSimulatorStore``'s mutex.
struct APNsSimulatorState {
    /// Lowercased device token → the millisecond timestamp reported with `410 Unregistered`.
    var unregistered: [String: Int64] = [:]
    /// Lowercased device tokens answered `400 BadDeviceToken`.
    var badTokens: Set<String> = []
    /// Lowercased device token → the bundle ids it is registered for; tokens absent here accept any topic.
    var tokenTopics: [String: Set<String>] = [:]

    /// What each arriving request gets: scripted and queued injections, then the random fault plan.
    var faults: FaultSchedule<APNsSimulator.Faults>

    /// The team's distinct accepted provider tokens with the time (seconds since 1970) each was first used, for
    /// `TooManyProviderTokenUpdates`.
    var providerTokens: [(token: String, firstSeen: Double)] = []

    /// Broadcast channels by id.
    var channels: [String: APNsChannelEntry] = [:]
    /// Channels created so far, deleted ones included: the creation number of the last one.
    var channelSequence = 0
    /// Accepted broadcasts, in order, when payloads are recorded.
    var acceptedBroadcasts: [APNsSimulator.AcceptedBroadcast] = []

    init(seed: UInt64) {
        self.faults = FaultSchedule(seed: seed)
    }
}
