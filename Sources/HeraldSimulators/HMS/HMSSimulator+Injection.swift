extension HMSSimulator {
    /// What a scripted request gets instead of ordinary processing (see ``HMSSimulator/inject(_:atRequest:)``).
    public enum Injection: Sendable, Hashable {
        /// Answer `httpStatus` with Push Kit's body `{"code":…,"msg":…,"requestId":…}`, plus `Retry-After` (seconds)
        /// when given. At the token endpoint: `httpStatus` with an OAuth error body.
        case code(String, httpStatus: Int, msg: String, retryAfter: Int? = nil)
        /// Answer `httpStatus` with a plain-text body and no code, as Huawei's front ends do when flow control or a
        /// gateway answers; plus `Retry-After` (seconds) when given.
        case status(Int, retryAfter: Int? = nil)
        /// Process the request normally, but answer only after this many milliseconds.
        case delay(milliseconds: Int)

        /// `500` with `81000001`: Push Kit's internal error.
        public static let internalError = Injection.code("81000001", httpStatus: 500, msg: "System inner error")

        /// `503` without a body code: Push Kit's flow control, with `Retry-After` when given.
        public static func flowControl(retryAfter: Int? = nil) -> Injection {
            .status(503, retryAfter: retryAfter)
        }

        /// `401` with `80200003`: the access token has expired.
        public static let accessTokenExpired = Injection.code("80200003", httpStatus: 401, msg: "Oauth Token expired.")

        /// `401` with `80200001`: the access token is not valid for this app.
        public static let accessTokenRefused = Injection.code("80200001", httpStatus: 401, msg: "Oauth authentication error.")

        /// `400` with `80300010`: more tokens than Push Kit takes in one request.
        public static let tooManyTokens = Injection.code(
            "80300010", httpStatus: 400, msg: "The number of tokens in the message body exceeds the default value.")

        /// `500` with `80600003`: Push Kit could not reach its OAuth service.
        public static let oauthServiceFailure = Injection.code("80600003", httpStatus: 500, msg: "Request OAuth service failed.")
    }
}
