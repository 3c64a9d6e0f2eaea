/// What the simulator answers one push request: status, headers and body.
///
/// Errors carry Mozilla autopush's JSON shape, `{"code":…,"errno":…,"error":…,"message":…}`, the most detailed
/// of the real services' error forms. The `errno` values follow autopush's documented codes where it has one for
/// the case (101 missing crypto headers, 102 unknown subscription, 103 expired subscription, 104 too large,
/// 109 authentication, 110 invalid crypto, 111 missing TTL, 112 invalid TTL, 113 invalid Topic); 114 for an
/// invalid Urgency and 999 for throttling and server errors are this simulator's choices.
struct WebPushAnswer: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    /// `201 Created` with the message resource's `Location`, and the `TTL` used when it was shortened.
    static func created(messageID: String, shortenedTTL: Int?) -> WebPushAnswer {
        var headers = [(name: "Location", value: "/m/\(messageID)")]
        if let shortenedTTL { headers.append((name: "TTL", value: String(shortenedTTL))) }
        return WebPushAnswer(status: 201, headers: headers, body: "")
    }

    /// An error answer with autopush's JSON body, plus `Retry-After` (seconds) when given.
    static func error(_ status: Int, errno: Int, message: String, retryAfter: Int? = nil) -> WebPushAnswer {
        var headers = [(name: "Content-Type", value: "application/json")]
        if let retryAfter { headers.append((name: "Retry-After", value: String(retryAfter))) }
        // The messages are the simulator's own fixed ASCII texts; only quotes and backslashes could need escaping.
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let body = #"{"code":\#(status),"errno":\#(errno),"error":"\#(phrase(status))","message":"\#(escaped)"}"#
        return WebPushAnswer(status: status, headers: headers, body: body)
    }

    /// The answer to an injected status, with the errno a real service would send for it.
    static func injected(_ status: Int, retryAfter: Int?) -> WebPushAnswer {
        switch status {
        case 404: error(404, errno: 102, message: "Subscription not found")
        case 410: error(410, errno: 103, message: "Subscription expired")
        case 413: error(413, errno: 104, message: "Payload too large")
        case 401, 403: error(status, errno: 109, message: "Invalid authentication")
        default: error(status, errno: 999, message: phrase(status), retryAfter: retryAfter)
        }
    }

    /// The HTTP reason phrase of `status`.
    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}
