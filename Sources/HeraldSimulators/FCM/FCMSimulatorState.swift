/// Everything an ``FCMSimulator`` shares between its connections, guarded by ``FCMSimulatorStore``'s mutex.
struct FCMSimulatorState {
    /// Registration tokens answered `404 UNREGISTERED`.
    var unregistered: Set<String> = []
    /// Registration tokens of another sender, answered `403 SENDER_ID_MISMATCH`.
    var senderMismatch: Set<String> = []
    /// Registration tokens answered `400 INVALID_ARGUMENT` although well-formed.
    var invalidTokens: Set<String> = []

    /// Issued access tokens.
    var accessTokens: [String: FCMAccessTokenGrant] = [:]

    /// What each arriving send request gets: scripted and queued injections, then the random fault plan. Its
    /// generator also makes access tokens and message ids.
    var faults: FaultSchedule<FCMSimulator.Faults>
    /// What the next token requests get, in order.
    var queuedTokenAnswers: [FCMSimulator.Injection] = []
    /// Numbers the accepted messages.
    var messageSequence: UInt64 = 0

    init(seed: UInt64) {
        self.faults = FaultSchedule(seed: seed)
    }
}
