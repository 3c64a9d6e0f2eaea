extension WebPushSimulator {
    /// What a scripted request gets instead of ordinary processing (see ``WebPushSimulator/injectNext(_:)``).
    public enum Injection: Sendable, Hashable {
        /// Answer with this status and the service's JSON error body, plus `Retry-After` (seconds) when given.
        case status(Int, retryAfter: Int? = nil)
        /// Process the request normally, but answer only after this many milliseconds (a slow service).
        case delay(milliseconds: Int)

        /// `404`: no such subscription.
        public static let notFound = Injection.status(404)
        /// `410`: the subscription expired or was unsubscribed.
        public static let gone = Injection.status(410)
        /// `413`: the body is too large.
        public static let payloadTooLarge = Injection.status(413)
        /// `500`.
        public static let internalServerError = Injection.status(500)
        /// `503`.
        public static let serviceUnavailable = Injection.status(503)

        /// `429`, with `Retry-After` (seconds) when given.
        public static func tooManyRequests(retryAfter: Int? = nil) -> Injection {
            .status(429, retryAfter: retryAfter)
        }
    }
}
