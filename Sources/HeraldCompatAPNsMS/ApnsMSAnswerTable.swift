import HeraldCore

/// APNs's answer to a notification as apns-ms's answer (compat.md §4.3), in one place: the
/// binary protocol's status texts, so that clients matching on them keep working.
enum ApnsMSAnswerTable {
    /// The 409 for `outcome`, or `nil` when the notification is accepted (delivered, or no answer in time).
    static func error(for outcome: DeliveryOutcome?, identifier: String) -> ApnsMSError? {
        guard let outcome, outcome.outcome != .delivered else { return nil }
        guard let status = outcome.status else {
            let description = outcome.reason ?? "connection failed"
            // APNs closing the connection for maintenance was the binary protocol's status 10.
            if description.contains("GOAWAY"), description.contains("Shutdown") { return .refused("Shutdown", identifier: identifier) }
            return .worker(description)
        }
        return .refused(text(status: status, reason: outcome.reason), identifier: identifier)
    }

    /// The binary-protocol status text of an HTTP/2 answer (its status number in the comments).
    static func text(status: Int, reason: String?) -> String {
        switch (status, reason) {
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (410, "Unregistered"), (410, "ExpiredToken"):
            "Invalid token"  // 8
        case (400, "MissingDeviceToken"):
            "Missing device token"  // 2
        case (400, "MissingTopic"), (400, "BadTopic"), (400, "TopicDisallowed"):
            "Missing topic"  // 3
        case (400, "PayloadEmpty"):
            "Missing payload"  // 4
        case (413, "PayloadTooLarge"):
            "Invalid payload size"  // 7
        case (503, "Shutdown"):
            "Shutdown"  // 10
        case (403, _), (429, _), (500, _), (503, "ServiceUnavailable"):
            "Processing error"  // 1
        default:
            "Unknown"  // 255
        }
    }
}
