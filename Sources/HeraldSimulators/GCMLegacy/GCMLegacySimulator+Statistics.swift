extension GCMLegacySimulator {
    /// Counters of what a ``GCMLegacySimulator`` received and answered.
    public struct Statistics: Sendable, Equatable {
        /// Requests received, whatever their answer.
        public var requests = 0
        /// Requests answered `200` (with per-token results).
        public var answered = 0
        /// Registration ids answered with a `message_id`.
        public var delivered = 0
        /// Registration ids answered with an `error`, by error.
        public var failures: [String: Int] = [:]
        /// Canonical registration ids returned.
        public var canonicalIDs = 0
        /// Non-200 answers by HTTP status.
        public var rejections: [Int: Int] = [:]
    }
}
