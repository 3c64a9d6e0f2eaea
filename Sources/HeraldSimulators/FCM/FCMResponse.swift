import Foundation
import NIOCore
import NIOHPACK

/// An answer of the simulator: FCM's JSON answers, Google's error format, the OAuth endpoint's forms.
struct FCMResponse: Sendable, SimulatorHTTP2Response {
    /// A field Google's `google.rpc.BadRequest` detail blames.
    struct FieldViolation: Sendable {
        var field: String?
        var description: String
    }

    var status: Int
    var headers: [(name: String, value: String)]
    var body: String
    /// What statistics count the answer under: the FCM error code, else the Google status (errors only).
    var reason: String?

    private static let jsonContentType: (name: String, value: String) = ("content-type", "application/json; charset=UTF-8")

    /// A `200` with `json`.
    static func ok(_ json: String, extraHeaders: [(name: String, value: String)] = []) -> FCMResponse {
        FCMResponse(status: 200, headers: [jsonContentType] + extraHeaders, body: json, reason: nil)
    }

    /// An error in Google's API format (providers.md §2.4):
    /// `{"error":{"code":…,"message":…,"status":…,"details":[…]}}`.
    ///
    /// - Parameters:
    ///   - errorCode: The `google.firebase.fcm.v1.FcmError` detail's `errorCode`, when FCM sends one.
    ///   - fieldViolations: A `google.rpc.BadRequest` detail, when not empty.
    ///   - errorInfoReason: A `google.rpc.ErrorInfo` detail's `reason` (authentication errors).
    static func googleError(
        _ httpStatus: Int,
        status: String,
        message: String,
        errorCode: String? = nil,
        fieldViolations: [FieldViolation] = [],
        errorInfoReason: String? = nil,
        retryAfter: Int? = nil,
        extraHeaders: [(name: String, value: String)] = []
    ) -> FCMResponse {
        var details: [String] = []
        if let errorCode {
            details.append(FCMJSONText.object([
                ("@type", FCMJSONText.quoted("type.googleapis.com/google.firebase.fcm.v1.FcmError")),
                ("errorCode", FCMJSONText.quoted(errorCode)),
            ]))
        }
        if !fieldViolations.isEmpty {
            let violations = fieldViolations.map { violation in
                FCMJSONText.object(
                    (violation.field.map { [("field", FCMJSONText.quoted($0))] } ?? [])
                        + [("description", FCMJSONText.quoted(violation.description))])
            }
            details.append(FCMJSONText.object([
                ("@type", FCMJSONText.quoted("type.googleapis.com/google.rpc.BadRequest")),
                ("fieldViolations", "[" + violations.joined(separator: ",") + "]"),
            ]))
        }
        if let errorInfoReason {
            details.append(FCMJSONText.object([
                ("@type", FCMJSONText.quoted("type.googleapis.com/google.rpc.ErrorInfo")),
                ("reason", FCMJSONText.quoted(errorInfoReason)),
                ("domain", FCMJSONText.quoted("googleapis.com")),
                ("metadata", FCMJSONText.object([
                    ("service", FCMJSONText.quoted("fcm.googleapis.com")),
                    ("method", FCMJSONText.quoted("google.firebase.fcm.v1.FcmService.SendMessage")),
                ])),
            ]))
        }
        var members: [(key: String, json: String)] = [
            ("code", String(httpStatus)), ("message", FCMJSONText.quoted(message)), ("status", FCMJSONText.quoted(status)),
        ]
        if !details.isEmpty {
            members.append(("details", "[" + details.joined(separator: ",") + "]"))
        }
        var headers = [jsonContentType] + extraHeaders
        if let retryAfter {
            headers.append(("retry-after", String(retryAfter)))
        }
        return FCMResponse(
            status: httpStatus, headers: headers, body: FCMJSONText.object([("error", FCMJSONText.object(members))]),
            reason: errorCode ?? status)
    }

    /// `400 INVALID_ARGUMENT` naming the bad field, as FCM answers a malformed message.
    static func invalidArgument(_ message: String, field: String? = nil, fcmError: Bool = false) -> FCMResponse {
        googleError(
            400, status: "INVALID_ARGUMENT", message: message, errorCode: fcmError ? "INVALID_ARGUMENT" : nil,
            fieldViolations: [FieldViolation(field: field, description: message)])
    }

    /// An OAuth error of the token endpoint: `{"error":"invalid_grant","error_description":"…"}`.
    static func oauthError(_ httpStatus: Int = 400, error: String, description: String) -> FCMResponse {
        FCMResponse(
            status: httpStatus,
            headers: [jsonContentType, ("cache-control", "no-cache, no-store, max-age=0, must-revalidate")],
            body: FCMJSONText.object([
                ("error", FCMJSONText.quoted(error)), ("error_description", FCMJSONText.quoted(description)),
            ]),
            reason: error)
    }

    /// Google front ends' HTML page for a URL nothing serves.
    static func notFoundPage(path: String) -> FCMResponse {
        let escaped = path.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return FCMResponse(
            status: 404, headers: [("content-type", "text/html; charset=UTF-8")],
            body: "<!DOCTYPE html>\n<html lang=en><title>Error 404 (Not Found)!!1</title>"
                + "<p><b>404.</b> <ins>That’s an error.</ins><p>The requested URL <code>\(escaped)</code> was not found on this server.  <ins>That’s all we know.</ins>",
            reason: "NOT_FOUND")
    }

    /// The HEADERS frame's header list.
    var headerBlock: HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(self.headers.count + 1)
        headers.add(name: ":status", value: String(self.status))
        for header in self.headers {
            headers.add(name: header.name, value: header.value)
        }
        return headers
    }

    /// The DATA frame's payload; `nil` when the answer has no body.
    func body(allocator: ByteBufferAllocator) -> ByteBuffer? {
        self.body.isEmpty ? nil : allocator.buffer(string: self.body)
    }
}
