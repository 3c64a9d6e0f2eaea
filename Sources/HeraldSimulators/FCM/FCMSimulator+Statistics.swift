extension FCMSimulator {
    /// Counters describing what the simulator has seen so far.
    public struct Statistics: Sendable, Hashable {
        /// `messages:send` requests received, whatever their outcome.
        public var requests: Int = 0
        /// Sends answered `200` (validate-only ones included).
        public var accepted: Int = 0
        /// Error answers to sends by FCM error code, else Google status (`UNREGISTERED`, `UNAUTHENTICATED`, ...),
        /// injected ones included.
        public var rejections: [String: Int] = [:]
        /// Requests to the token endpoint, whatever their outcome.
        public var tokenRequests: Int = 0
        /// Access tokens issued.
        public var tokenExchanges: Int = 0
        /// Token endpoint refusals by OAuth error (`invalid_grant`, ...).
        public var tokenRejections: [String: Int] = [:]
        /// TCP connections accepted.
        public var connections: Int = 0
        /// The most streams any one connection had open at once.
        public var maxConcurrentStreamsObserved: Int = 0
        /// `GOAWAY` frames sent by the simulator.
        public var goAwaysSent: Int = 0
    }
}

// The connection counters are kept by the simulator's `SimulatorConnectionRegistry`, which fills them in.
extension FCMSimulator.Statistics: SimulatorConnectionStatistics {}

// Sends, acceptances and rejections by error are counted by the store's `SimulatorRecorder`.
extension FCMSimulator.Statistics: SimulatorRequestStatistics {}
