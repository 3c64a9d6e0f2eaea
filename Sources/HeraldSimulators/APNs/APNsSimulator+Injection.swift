extension APNsSimulator {
    /// What a scripted request gets instead of ordinary processing (see ``APNsSimulator/inject(_:atRequest:)``).
    public enum Injection: Sendable, Hashable {
        /// Answer with this status and `{"reason":…}`, plus `retry-after` (seconds) when given.
        case error(status: Int, reason: String, retryAfter: Int? = nil)
        /// Process the request normally, but answer only after this many milliseconds.
        case delay(milliseconds: Int)
        /// Never answer; the stream stays open until the client gives up or the connection closes.
        case hang
        /// Answer nothing and end the connection with a `GOAWAY` (`NO_ERROR`, debug data `{"reason":…}`) whose last
        /// stream id excludes this request, so the client knows it was not processed.
        case goAway(reason: String)
        /// Close the TCP connection abruptly (RST), without any HTTP/2 goodbye.
        case resetConnection

        /// `500 InternalServerError`.
        public static let internalServerError = Injection.error(status: 500, reason: "InternalServerError")
        /// `503 ServiceUnavailable`.
        public static let serviceUnavailable = Injection.error(status: 503, reason: "ServiceUnavailable")
        /// `503 Shutdown`.
        public static let shutdown = Injection.error(status: 503, reason: "Shutdown")

        /// `429 TooManyRequests`, with `retry-after` (seconds) when given.
        public static func tooManyRequests(retryAfter: Int? = nil) -> Injection {
            .error(status: 429, reason: "TooManyRequests", retryAfter: retryAfter)
        }
    }
}
