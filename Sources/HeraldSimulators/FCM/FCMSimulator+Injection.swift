extension FCMSimulator {
    /// What a scripted request gets instead of ordinary processing (see ``FCMSimulator/inject(_:atRequest:)``).
    public enum Injection: Sendable, Hashable {
        /// Answer `httpStatus` with Google's error body: `status` (`RESOURCE_EXHAUSTED`, ...), `message`, and an
        /// `FcmError` detail carrying `errorCode` when given; plus `Retry-After` (seconds) when given.
        case error(httpStatus: Int, status: String, errorCode: String?, message: String, retryAfter: Int? = nil)
        /// Process the request normally, but answer only after this many milliseconds.
        case delay(milliseconds: Int)
        /// Never answer; the stream stays open until the client gives up or the connection closes.
        case hang
        /// Answer nothing and end the connection with a `GOAWAY` (`NO_ERROR`) whose last stream id excludes
        /// this request, so the client knows it was not processed.
        case goAway
        /// Close the TCP connection abruptly (RST), without any HTTP/2 goodbye.
        case resetConnection

        /// `429 RESOURCE_EXHAUSTED` with FcmError `QUOTA_EXCEEDED`, and `Retry-After` when given.
        public static func quotaExceeded(retryAfter: Int? = nil) -> Injection {
            .error(
                httpStatus: 429, status: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED",
                message: "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'.",
                retryAfter: retryAfter)
        }

        /// `500 INTERNAL` with FcmError `INTERNAL`.
        public static let internalError = Injection.error(
            httpStatus: 500, status: "INTERNAL", errorCode: "INTERNAL", message: "Internal error encountered.")

        /// `503 UNAVAILABLE` with FcmError `UNAVAILABLE`, and `Retry-After` when given.
        public static func unavailable(retryAfter: Int? = nil) -> Injection {
            .error(
                httpStatus: 503, status: "UNAVAILABLE", errorCode: "UNAVAILABLE", message: "The service is currently unavailable.",
                retryAfter: retryAfter)
        }

        /// `401 UNAUTHENTICATED` with FcmError `THIRD_PARTY_AUTH_ERROR`: the project's APNs or Web Push
        /// credentials are invalid.
        public static let thirdPartyAuthError = Injection.error(
            httpStatus: 401, status: "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR",
            message: "Auth error from APNS or Web Push Service")
    }
}
