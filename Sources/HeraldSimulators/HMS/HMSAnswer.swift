import Foundation
import Hummingbird

/// The simulator's answers: Push Kit's `{"code","msg","requestId"}` bodies and the OAuth endpoint's error form.
enum HMSAnswer {
    private static let jsonContentType = ("Content-Type", "application/json;charset=UTF-8")

    /// Push Kit's answer with `code` and `msg` under `httpStatus`, plus `Retry-After` (seconds) when given.
    static func code(_ code: String, httpStatus: Int, msg: String, requestID: String, retryAfter: Int? = nil) -> Response {
        var headers = [jsonContentType]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        let body = FCMJSONText.object([
            ("code", FCMJSONText.quoted(code)), ("msg", FCMJSONText.quoted(msg)), ("requestId", FCMJSONText.quoted(requestID)),
        ])
        return SimulatorHTTPAnswer.make(status: httpStatus, headers: headers, body: body)
    }

    /// A plain-text answer without a code (flow control, a gateway), plus `Retry-After` (seconds) when given.
    static func plain(_ httpStatus: Int, retryAfter: Int? = nil) -> Response {
        var headers = [("Content-Type", "text/plain;charset=UTF-8")]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        let text = httpStatus == 503 ? "Service Unavailable" : httpStatus >= 500 ? "Server Error" : "Request Error"
        return SimulatorHTTPAnswer.make(status: httpStatus, headers: headers, body: text)
    }

    /// An OAuth error of the token endpoint, in Huawei's form with numeric codes:
    /// `{"sub_error":20152,"error_description":"invalid client_secret","error":1101}`.
    static func oauthError(_ httpStatus: Int = 400, error: Int, subError: Int, description: String, retryAfter: Int? = nil) -> Response {
        var headers = [jsonContentType, ("Cache-Control", "no-store")]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        let body = FCMJSONText.object([
            ("sub_error", String(subError)), ("error_description", FCMJSONText.quoted(description)), ("error", String(error)),
        ])
        return SimulatorHTTPAnswer.make(status: httpStatus, headers: headers, body: body)
    }

    /// The token endpoint's success: `{"access_token":…,"expires_in":…,"token_type":"Bearer"}`, with `/` written
    /// `\/` as Huawei's JSON writes it.
    static func accessToken(_ token: String, expiresIn: Int) -> Response {
        let escaped = FCMJSONText.quoted(token).replacingOccurrences(of: "/", with: "\\/")
        let body = FCMJSONText.object([
            ("access_token", escaped), ("expires_in", String(expiresIn)), ("token_type", FCMJSONText.quoted("Bearer")),
        ])
        return SimulatorHTTPAnswer.make(
            status: 200, headers: [jsonContentType, ("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: body)
    }
}
