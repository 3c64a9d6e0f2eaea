/// Everything a ``WNSSimulator`` shares between its requests, guarded by the simulator's mutex.
struct WNSSimulatorState {
    struct Channel {
        var clientID: String
        var state: WNSSimulator.ChannelState
    }

    struct IssuedToken {
        var clientID: String
        var expiresAt: ContinuousClock.Instant
    }

    var statistics = WNSSimulator.Statistics()
    var accepted: [WNSSimulator.Accepted] = []
    /// Channel id (the `token` query parameter) → channel.
    var channels: [String: Channel] = [:]
    /// Access token → the app it was issued to.
    var tokens: [String: IssuedToken] = [:]
    /// Faults of notification requests.
    var faults: HTTP1FaultPlan
    /// What the next token requests get, in order.
    var queuedTokenAnswers: [HTTP1SimulatorInjection] = []

    /// `https://127.0.0.1:<port>` once the simulator listens.
    var origin = ""

    init(seed: UInt64) {
        self.faults = HTTP1FaultPlan(seed: seed)
    }

    /// The channel URI of the channel `id`.
    func channelURI(id: String) -> String { "\(origin)/?token=\(id)" }
}
