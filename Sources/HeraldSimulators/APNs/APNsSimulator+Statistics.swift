extension APNsSimulator {
    /// Counters describing what the simulator has seen so far.
    public struct Statistics: Sendable, Hashable {
        /// Requests received (complete HEADERS and body), whatever their outcome.
        public var requests: Int = 0
        /// Requests answered `200`: device pushes and broadcasts (not channel management requests).
        public var accepted: Int = 0
        /// Broadcasts accepted (also counted in ``accepted``).
        public var broadcasts: Int = 0
        /// Channels created by requests (`201`).
        public var channelsCreated: Int = 0
        /// Channels deleted by requests (`204`).
        public var channelsDeleted: Int = 0
        /// Error answers by `reason`, injected ones included.
        public var rejections: [String: Int] = [:]
        /// TCP connections accepted.
        public var connections: Int = 0
        /// The most streams any one connection had open at once.
        public var maxConcurrentStreamsObserved: Int = 0
        /// `SETTINGS` frames sent after the first one to raise `SETTINGS_MAX_CONCURRENT_STREAMS`.
        public var maxConcurrentStreamsRaises: Int = 0
        /// Connections ended with `GOAWAY PROTOCOL_ERROR` for opening more streams than advertised.
        public var maxConcurrentStreamsViolations: Int = 0
        /// Connections nio-http2 ended with a `GOAWAY` of its own for another HTTP/2 protocol error of the client (a
        /// malformed frame, a stream-state violation, …); those `GOAWAY`s are not in ``goAwaysSent``.
        public var protocolErrors: Int = 0
        /// `GOAWAY` frames sent, for any reason.
        public var goAwaysSent: Int = 0
    }
}

// The connection counters are kept by the simulator's `SimulatorConnectionRegistry`, which fills them in.
extension APNsSimulator.Statistics: SimulatorConnectionStatistics {}

// Requests, acceptances and rejections by reason are counted by the store's `SimulatorRecorder`.
extension APNsSimulator.Statistics: SimulatorRequestStatistics {}
