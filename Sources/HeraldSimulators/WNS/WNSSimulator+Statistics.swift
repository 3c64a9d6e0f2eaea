extension WNSSimulator {
    /// Counters of what a ``WNSSimulator`` received and answered.
    public struct Statistics: Sendable, Equatable {
        /// Requests to `/accesstoken.srf`.
        public var tokenRequests = 0
        /// Access tokens issued.
        public var tokensIssued = 0
        /// Notification requests (to channel URIs), whatever their answer.
        public var notificationRequests = 0
        /// Notifications answered `200` with `X-WNS-Status: received`.
        public var accepted = 0
        /// Notifications answered `200` with `X-WNS-Status: dropped` (offline channel).
        public var dropped = 0
        /// Error answers by HTTP status (token and notification requests).
        public var rejections: [Int: Int] = [:]
    }
}
