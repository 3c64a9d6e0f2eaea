import HeraldCore

/// Every WNS answer mapped to a delivery outcome, in one place (pushd-api.md §11.2, providers.md §4.3).
///
/// | answer | outcome |
/// |---|---|
/// | 200, `X-WNS-Status: received` (or absent) | delivered |
/// | 200, `dropped` | delivered (WNS accepted it; a toast to an offline device is dropped by design), reason `dropped` |
/// | 200, `channelthrottled` | transient, after `X-WNS-CONTINUE-AFTER` / `Retry-After` |
/// | 404 (channel not recognized), 410 (channel expired) | dead token |
/// | 401 (access token) | configuration failure — the provider refreshes its token and retries once first |
/// | 403 (channel of another app) | subscriber failure |
/// | 400, 405, 413, other 4xx, 3xx | message failure |
/// | 406 (throttled), 429, 500, 503, other 5xx | transient, honouring `Retry-After` |
public enum WNSResponseTable {
    /// The status that makes the provider fetch a new access token and retry once.
    public static let unauthorized = 401

    /// The outcome of an answer with `status` and its `X-WNS-*` headers.
    public static func outcome(
        status: Int,
        notificationStatus: String?,
        errorDescription: String?,
        retryAfter: String?,
        continueAfter: String? = nil
    ) -> DeliveryOutcome {
        let wnsStatus = notificationStatus?.lowercased()
        let reason = errorDescription ?? notificationStatus ?? "HTTP \(status)"
        let delay = RetryAfter.parse(retryAfter) ?? RetryAfter.parse(continueAfter)
        switch status {
        case 200:
            switch wnsStatus {
            case "channelthrottled":
                return DeliveryOutcome(.transient, reason: "channelthrottled", status: status, retryAfter: delay)
            case "dropped":
                return DeliveryOutcome(.delivered, reason: "dropped", status: status)
            default:
                return DeliveryOutcome(.delivered, status: status)
            }
        case 404, 410:
            return DeliveryOutcome(.deadToken, reason: reason, status: status)
        case 401:
            return DeliveryOutcome(.configurationFailure, reason: reason, status: status)
        case 403:
            return DeliveryOutcome(.subscriberFailure, reason: reason, status: status)
        case 406, 429, 500..<600:
            return DeliveryOutcome(.transient, reason: reason, status: status, retryAfter: delay)
        default:
            // 400, 405, 413 and anything else: the request itself is wrong; sending it again won't help.
            return DeliveryOutcome(.messageFailure, reason: reason, status: status)
        }
    }
}
