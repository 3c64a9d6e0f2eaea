import AsyncHTTPClient
import HeraldCore
import HeraldWebhook
import NIOSSL

/// Every push-service answer mapped to a delivery outcome, in one place (pushd-api.md §11.2, providers.md §3.2).
///
/// | answer | outcome |
/// |---|---|
/// | 200, 201, 202 (any 2xx) | delivered |
/// | 404, 410 | dead token: the subscription expired or was unsubscribed |
/// | 413 | message failure (`PayloadTooLarge`): this notification is too large for the service |
/// | 429, 406 (Edge/WNS throttling), 5xx | transient, honouring `Retry-After` |
/// | 400, 401, 403, other 4xx, 3xx | subscriber failure: counted; Herald sends well-formed requests, so what is wrong is the subscription (a 401/403 usually means it was made for another VAPID key, or for another origin) |
/// | transport errors (refused, reset, TLS, timeout) | transient |
/// | an endpoint the egress guard refused (`outbound.deny`/`allow`) | subscriber failure (`DestinationNotAllowed`) |
public enum WebPushResponseTable {
    /// The outcome of an answer with `status`, its error `body` (JSON of any service's shape, or nothing) and its
    /// `Retry-After` header.
    public static func outcome(status: Int, body: [UInt8] = [], retryAfter: String? = nil) -> DeliveryOutcome {
        switch status {
        case 200..<300:
            return .delivered
        case 404, 410:
            return DeliveryOutcome(.deadToken, reason: reason(status: status, body: body), status: status)
        case 413:
            return DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge", status: status)
        case 406, 429, 500..<600:
            return DeliveryOutcome(
                .transient, reason: reason(status: status, body: body), status: status, retryAfter: RetryAfter.parse(retryAfter))
        default:
            return DeliveryOutcome(.subscriberFailure, reason: reason(status: status, body: body), status: status)
        }
    }

    /// The outcome of a request that got no answer.
    public static func outcome(for error: any Error) -> DeliveryOutcome {
        OutboundErrorReason.outcome(for: error)
    }

    /// `HTTP <status>`, plus the service's own reason when its body names one: Apple's `{"reason":…}`, Mozilla's
    /// `{"errno":…}`, FCM's `{"error":{"status":…}}`.
    static func reason(status: Int, body: [UInt8]) -> String {
        let base = "HTTP \(status)"
        guard !body.isEmpty, body.count <= 16 * 1024, let value = try? JSONBodyParser.parse(body) else { return base }
        if case .string(let reason)? = value["reason"], !reason.isEmpty, reason.utf8.count <= 64 { return "\(base) \(reason)" }
        if case .number(let errno)? = value["errno"] { return "\(base) errno \(errno)" }
        if case .string(let name)? = value["error"]?["status"], name.utf8.count <= 64 { return "\(base) \(name)" }
        return base
    }
}
