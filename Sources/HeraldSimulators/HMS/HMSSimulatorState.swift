/// Everything an ``HMSSimulator`` shares between its requests, guarded by ``HMSSimulatorStore``'s mutex.
struct HMSSimulatorState {
    var statistics = HMSSimulator.Statistics()
    /// Accepted requests, when payloads are recorded.
    var accepted: [HMSSimulator.Accepted] = []
    /// Every delivered token, in order, when tokens are recorded.
    var acceptedTokens: [String] = []
    /// Tokens Push Kit no longer knows (the app was uninstalled): illegal in every request.
    var unregistered: Set<String> = []
    /// Issued access tokens.
    var accessTokens: [String: HMSAccessTokenGrant] = [:]
    /// What each arriving send request gets: scripted and queued injections, then the random fault plan. Its
    /// generator also makes access tokens and request ids.
    var faults: FaultSchedule<HMSSimulator.Faults>
    /// What the next token requests get, in order.
    var queuedTokenAnswers: [HMSSimulator.Injection] = []
    /// Numbers the answers' request ids.
    var requestSequence: UInt64 = 0

    init(seed: UInt64) {
        self.faults = FaultSchedule(seed: seed)
    }
}
