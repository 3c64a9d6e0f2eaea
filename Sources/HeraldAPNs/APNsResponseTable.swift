import HeraldCore

/// Every APNs answer mapped to a delivery outcome, in one place (pushd-api.md §11.2, providers.md §1.4, §1.8).
public enum APNsResponseTable {
    /// The reason that makes the provider mint a new token, reconnect and retry once.
    public static let expiredProviderToken = "ExpiredProviderToken"

    /// The outcome of an answer with `status` and the JSON error `body` (`{"reason":…,"timestamp":…}`).
    public static func outcome(status: Int, body: [UInt8], retryAfter: String?) -> DeliveryOutcome {
        if status == 200 { return .delivered }
        let (reason, timestamp) = parse(body)
        let named = reason ?? "HTTP \(status)"
        switch (status, reason) {
        case (410, _):
            // Unregistered / ExpiredToken: dead unless the subscriber registered again after `timestamp`.
            return DeliveryOutcome(.deadToken, reason: named, status: status, invalidSince: timestamp)
        case (400, "BadDeviceToken"):
            return DeliveryOutcome(.deadToken, reason: named, status: status)
        case (400, "BadChannelId"), (400, "ChannelNotRegistered"):
            // A broadcast to a channel that was deleted or never existed: the `channel:<id>` token is dead.
            return DeliveryOutcome(.deadToken, reason: named, status: status)
        case (400, "DeviceTokenNotForTopic"):
            return DeliveryOutcome(.subscriberFailure, reason: named, status: status)
        case (400, "IdleTimeout"), (503, "Shutdown"):
            return DeliveryOutcome(.transient, reason: named, status: status)
        case (403, _):
            return DeliveryOutcome(.configurationFailure, reason: named, status: status)
        case (429, "TooManyProviderTokenUpdates"):
            // Our token rotation was too eager; trying again once the current token has aged works.
            return DeliveryOutcome(.transient, reason: named, status: status, retryAfter: .seconds(Int64(APNsProviderToken.minimumAge)))
        case (429, _), (500..<600, _):
            return DeliveryOutcome(.transient, reason: named, status: status, retryAfter: RetryAfter.parse(retryAfter))
        default:
            // 400 (other reasons), 404, 405, 413: the request itself is wrong; sending it again won't help.
            return DeliveryOutcome(.messageFailure, reason: named, status: status)
        }
    }

    /// Reads `reason` and `timestamp` from an error body; unknown shapes give `nil`s, never a failure.
    static func parse(_ body: [UInt8]) -> (reason: String?, timestamp: Int64?) {
        guard !body.isEmpty, let value = try? JSONBodyParser.parse(body) else { return (nil, nil) }
        var reason: String?
        if case .string(let text)? = value["reason"] { reason = text }
        var timestamp: Int64?
        if case .number(let literal)? = value["timestamp"] { timestamp = Int64(literal) ?? Double(literal).map { Int64($0) } }
        return (reason, timestamp)
    }
}
