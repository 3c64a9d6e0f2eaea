extension HMSSimulator {
    /// Counters describing what the simulator has seen so far.
    public struct Statistics: Sendable, Hashable {
        /// `messages:send` requests received, whatever their answer.
        public var requests: Int = 0
        /// Requests answered `80000000` or `80100000` (validate-only ones included).
        public var accepted: Int = 0
        /// Tokens delivered to (validate-only requests deliver nothing).
        public var delivered: Int = 0
        /// Tokens refused as illegal, in partial successes and `80300007` answers.
        public var illegalTokens: Int = 0
        /// Error answers to sends by code (`80300007`, `80200003`, …), or `HTTP <status>` for those without one,
        /// injected ones included.
        public var rejections: [String: Int] = [:]
        /// Requests to the token endpoint, whatever their answer.
        public var tokenRequests: Int = 0
        /// Access tokens issued.
        public var tokenExchanges: Int = 0
        /// Token endpoint refusals by their `error_description` (`invalid client_secret`, …).
        public var tokenRejections: [String: Int] = [:]
    }
}
