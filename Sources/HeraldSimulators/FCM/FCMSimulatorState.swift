/// Everything an ``FCMSimulator`` shares between its connections, guarded by ``FCMSimulatorStore``'s mutex.
struct FCMSimulatorState {
    /// The counters; the connection counters among them stay 0 here, as ``SimulatorConnectionRegistry`` keeps
    /// them.
    var statistics = FCMSimulator.Statistics()
    var acceptedTokens: [String] = []
    var accepted: [FCMSimulator.Accepted] = []

    /// Registration tokens answered `404 UNREGISTERED`.
    var unregistered: Set<String> = []
    /// Registration tokens of another sender, answered `403 SENDER_ID_MISMATCH`.
    var senderMismatch: Set<String> = []
    /// Registration tokens answered `400 INVALID_ARGUMENT` although well-formed.
    var invalidTokens: Set<String> = []

    /// Issued access tokens.
    var accessTokens: [String: FCMAccessTokenGrant] = [:]

    var faults = FCMSimulator.Faults.none
    /// Send request number (1-based) → what that request gets.
    var scripted: [Int: FCMSimulator.Injection] = [:]
    /// What the next send requests get, in order, when they have no entry in `scripted`.
    var queued: [FCMSimulator.Injection] = []
    /// What the next token requests get, in order.
    var queuedTokenAnswers: [FCMSimulator.Injection] = []
    var generator: SeededRandomNumberGenerator
    /// Numbers the accepted messages.
    var messageSequence: UInt64 = 0

    init(seed: UInt64) {
        self.generator = SeededRandomNumberGenerator(seed: seed)
    }
}
