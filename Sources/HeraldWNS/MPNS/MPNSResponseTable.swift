import HeraldCore

/// Every MPNS answer mapped to a delivery outcome, in one place (pushd-api.md §11.2, providers.md §5.1).
///
/// | answer | outcome |
/// |---|---|
/// | any status with `X-SubscriptionStatus: Expired`; 404; 410 | dead token |
/// | 200 `Received` (or no status) | delivered |
/// | 200 `Suppressed` (the app turned this kind of notification off), 200 `Dropped` | delivered, with that reason |
/// | 200 `QueueFull` | transient |
/// | 406 (daily throttle), 5xx | transient, honouring `Retry-After` |
/// | 412 (device inactive) | transient, not before an hour, as MPNS client libraries waited |
/// | 400, 401, 405, other 4xx, 3xx | subscriber failure |
public enum MPNSResponseTable {
    /// How long client libraries waited after a `412` (device inactive).
    public static let inactiveDeviceDelay: Duration = .seconds(3600)

    /// The outcome of an answer with `status` and the `X-NotificationStatus`, `X-SubscriptionStatus` and
    /// `X-DeviceConnectionStatus` headers.
    public static func outcome(
        status: Int,
        notificationStatus: String?,
        subscriptionStatus: String?,
        deviceConnectionStatus: String?,
        retryAfter: String?
    ) -> DeliveryOutcome {
        let reason = [notificationStatus, subscriptionStatus, deviceConnectionStatus].compactMap { $0 }.joined(separator: "/")
        let named = reason.isEmpty ? "HTTP \(status)" : reason
        if subscriptionStatus?.lowercased() == "expired" || status == 404 || status == 410 {
            return DeliveryOutcome(.deadToken, reason: named, status: status)
        }
        switch status {
        case 200:
            switch notificationStatus?.lowercased() {
            case "queuefull":
                return DeliveryOutcome(.transient, reason: named, status: status, retryAfter: RetryAfter.parse(retryAfter))
            case "suppressed", "dropped":
                return DeliveryOutcome(.delivered, reason: notificationStatus, status: status)
            default:
                return DeliveryOutcome(.delivered, status: status)
            }
        case 412:
            let delay = RetryAfter.parse(retryAfter) ?? inactiveDeviceDelay
            return DeliveryOutcome(.transient, reason: named, status: status, retryAfter: delay)
        case 406, 500..<600:
            return DeliveryOutcome(.transient, reason: named, status: status, retryAfter: RetryAfter.parse(retryAfter))
        default:
            return DeliveryOutcome(.subscriberFailure, reason: named, status: status)
        }
    }
}
