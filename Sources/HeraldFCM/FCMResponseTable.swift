import HeraldCore

/// Every FCM and token-endpoint answer mapped to a delivery outcome, in one place (pushd-api.md §11.2,
/// providers.md §2.4).
public enum FCMResponseTable {
    /// The reason of a `401` that refused the access token itself: the provider fetches a new token and
    /// retries once before reporting it.
    public static let accessTokenRejected = "UNAUTHENTICATED"

    /// What an error body says: the FCM error code, the Google status, the message, and the fields blamed.
    struct ErrorBody: Equatable {
        var errorCode: String?
        var status: String?
        var message: String?
        var fieldViolations: [String] = []
    }

    /// The outcome of a `messages:send` answer with `status`, its `body` and `Retry-After` header.
    public static func outcome(status: Int, body: [UInt8], retryAfter: String?) -> DeliveryOutcome {
        if (200..<300).contains(status) { return .delivered }
        let error = parse(body)
        let reason = error.errorCode ?? error.status ?? "HTTP \(status)"
        switch (status, error.errorCode) {
        case (_, "UNREGISTERED"):
            return DeliveryOutcome(.deadToken, reason: reason, status: status)
        case (_, "SENDER_ID_MISMATCH"):
            // The token belongs to another project: counted against the subscriber, deleted at the threshold.
            return DeliveryOutcome(.subscriberFailure, reason: reason, status: status)
        case (_, "THIRD_PARTY_AUTH_ERROR"), (_, "APNS_AUTH_ERROR"):
            // The Firebase project's APNs or Web Push credentials are wrong.
            return DeliveryOutcome(.configurationFailure, reason: reason, status: status, retryAfter: nil)
        case (_, "QUOTA_EXCEEDED"), (_, "UNAVAILABLE"), (_, "INTERNAL"), (_, "UNSPECIFIED_ERROR"), (429, _), (500..<600, _):
            // Also the non-JSON 502 pages of Google's front ends.
            return DeliveryOutcome(.transient, reason: reason, status: status, retryAfter: RetryAfter.parse(retryAfter))
        case (400, _):
            if isAboutToken(error) {
                return DeliveryOutcome(.deadToken, reason: reason, status: status)
            }
            return DeliveryOutcome(.messageFailure, reason: messageFailureReason(error, fallback: reason), status: status)
        case (401, _):
            return DeliveryOutcome(.configurationFailure, reason: accessTokenRejected, status: status)
        case (403, _), (404, _):
            // Missing IAM permission, API not enabled, or a wrong project id / endpoint path.
            return DeliveryOutcome(.configurationFailure, reason: reason, status: status)
        default:
            return DeliveryOutcome(.messageFailure, reason: reason, status: status)
        }
    }

    /// Whether an `INVALID_ARGUMENT` blames the registration token (§11.2): a field violation on
    /// `message.token`, or a message naming the registration token.
    static func isAboutToken(_ error: ErrorBody) -> Bool {
        if error.fieldViolations.contains("message.token") { return true }
        return error.message?.lowercased().contains("registration token") ?? false
    }

    /// `INVALID_ARGUMENT: <message>` when FCM said what was wrong, so the feedback log tells the bad field.
    private static func messageFailureReason(_ error: ErrorBody, fallback: String) -> String {
        guard let message = error.message, !message.isEmpty else { return fallback }
        return "\(fallback): \(message)"
    }

    /// Reads Google's error body; unknown shapes give an empty result, never a failure.
    ///
    /// `{"error":{"code":…,"message":…,"status":…,"details":[{"@type":"…FcmError","errorCode":…},
    /// {"@type":"…BadRequest","fieldViolations":[{"field":…}]}]}}`, details in any order.
    static func parse(_ body: [UInt8]) -> ErrorBody {
        var result = ErrorBody()
        guard !body.isEmpty, let document = try? JSONBodyParser.parse(body), case .object? = document["error"] else {
            return result
        }
        let error = document["error"]!
        if case .string(let status)? = error["status"] { result.status = status }
        if case .string(let message)? = error["message"] { result.message = message }
        if case .array(let details)? = error["details"] {
            for detail in details {
                guard case .string(let type)? = detail["@type"] else { continue }
                if type.hasSuffix("google.firebase.fcm.v1.FcmError"), case .string(let code)? = detail["errorCode"] {
                    result.errorCode = code
                } else if type.hasSuffix("google.rpc.BadRequest"), case .array(let violations)? = detail["fieldViolations"] {
                    for violation in violations {
                        if case .string(let field)? = violation["field"] { result.fieldViolations.append(field) }
                    }
                }
            }
        }
        return result
    }
}
