import HeraldCore

/// A gorush Android notification as the FCM HTTP v1 message Herald sends to each token
/// (compat.md §6.5, §1.3), without its target: the FCM provider adds `token`.
enum GorushFCMPayload {
    /// gorush's legacy `notification` keys that FCM v1 takes in `android.notification`.
    static let androidNotificationKeys = [
        "icon", "color", "sound", "tag", "click_action", "body_loc_key", "body_loc_args", "title_loc_key", "title_loc_args", "channel_id",
    ]
    /// The longest `android.ttl` FCM accepts: four weeks.
    static let maximumTTLSeconds: Int64 = 2_419_200

    /// The message for `notification`.
    static func payload(for notification: GorushNotification) -> PreparedPayload {
        var message: [(key: String, value: BodyValue)] = []

        // `data`: FCM v1 takes strings only; anything else is sent as its JSON text (§1.3).
        let data = FCMData.strings(notification.object("data") ?? [])
        if !data.isEmpty { message.append(("data", .object(data))) }

        var display: [(key: String, value: BodyValue)] = []
        let given = notification.object("notification") ?? []
        func givenString(_ key: String) -> String? {
            if case .string(let text)? = given.first(where: { $0.key == key })?.value, !text.isEmpty { text } else { nil }
        }
        for (key, field) in [("title", "title"), ("body", "message"), ("image", "image")] {
            if let text = givenString(key) ?? notification.nonEmpty(field) { display.append((key, .string(text))) }
        }
        if !display.isEmpty { message.append(("notification", .object(display))) }

        var android: [(key: String, value: BodyValue)] = []
        if let priority = notification.nonEmpty("priority") { android.append(("priority", .string(priority.uppercased()))) }
        if let collapse = notification.nonEmpty("collapse_key") { android.append(("collapse_key", .string(collapse))) }
        if let ttl = notification.integer("time_to_live") {
            android.append(("ttl", .string("\(min(max(ttl, 0), maximumTTLSeconds))s")))
        }
        if let package = notification.nonEmpty("restricted_package_name") { android.append(("restricted_package_name", .string(package))) }
        var androidNotification: [(key: String, value: BodyValue)] = []
        for key in androidNotificationKeys {
            guard let value = given.first(where: { $0.key == key })?.value, !GorushAPNsPayload.isZero(value) else { continue }
            androidNotification.append((key, value))
        }
        let sound = notification.nonEmpty("sound")
        if let sound, !androidNotification.contains(where: { $0.key == "sound" }) { androidNotification.append(("sound", .string(sound))) }
        if !androidNotification.isEmpty { android.append(("notification", .object(androidNotification))) }
        if let overrides = notification.object("android") { android = merged(android, overrides) }
        if !android.isEmpty { message.append(("android", .object(android))) }

        var aps: [(key: String, value: BodyValue)] = []
        var apnsHeaders: [(key: String, value: BodyValue)] = []
        if let sound { aps.append(("sound", .string(sound))) }
        if notification.bool("content_available") {
            aps.append(("content-available", .number("1")))
            apnsHeaders.append(("apns-priority", .string("5")))
        }
        if notification.bool("mutable_content") { aps.append(("mutable-content", .number("1"))) }
        var apns: [(key: String, value: BodyValue)] = []
        if !apnsHeaders.isEmpty { apns.append(("headers", .object(apnsHeaders))) }
        if !aps.isEmpty { apns.append(("payload", .object([("aps", .object(aps))]))) }
        if let overrides = notification.object("apns") { apns = merged(apns, overrides) }
        if !apns.isEmpty { message.append(("apns", .object(apns))) }

        for key in ["webpush", "fcm_options"] {
            if let object = notification.object(key) { message.append((key, .object(object))) }
        }
        // `dry_run` is the request's `validate_only`, outside the message.
        let headers = notification.bool("dry_run") ? ["fcm-validate-only": "true"] : [:]
        return PreparedPayload(
            body: BodyValue.object(message).jsonText, headers: headers, label: "gorush", reference: notification.notificationID)
    }

    /// The message to the notification's `condition`, or else its `topic` (without a `/topics/`
    /// prefix), if it has one: `payload` with the target in its headers, and the label its
    /// delivery is recorded under (FCM registration tokens never contain a `/`).
    static func topicMessage(_ payload: PreparedPayload, for notification: GorushNotification) -> (PreparedPayload, String)? {
        var message = payload
        if let condition = notification.nonEmpty("condition") {
            message.headers["fcm-condition"] = condition
            return (message, "/condition")
        }
        guard var topic = notification.nonEmpty("topic") else { return nil }
        if topic.hasPrefix("/topics/") { topic.removeFirst("/topics/".count) }
        message.headers["fcm-topic"] = topic
        return (message, "/topics/" + topic)
    }

    /// A protobuf `Duration` string for `nanoseconds` (clamped to 0 ... four weeks), exact to the
    /// nanosecond: 3,500,000,000 is `"3.5s"`, as FCM reads it (compat.md §6.5).
    static func durationString(nanoseconds: Int64) -> String {
        let clamped = min(max(nanoseconds, 0), maximumTTLSeconds * 1_000_000_000)
        let (seconds, fraction) = clamped.quotientAndRemainder(dividingBy: 1_000_000_000)
        guard fraction > 0 else { return "\(seconds)s" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(seconds).\(digits)s"
    }

    /// `derived` with `overrides` laid over it, key by key; `android.ttl` given as an integer of
    /// nanoseconds (what gorush's Go types produce) becomes a duration string.
    static func merged(
        _ derived: [(key: String, value: BodyValue)], _ overrides: [(key: String, value: BodyValue)]
    ) -> [(key: String, value: BodyValue)] {
        var result = derived
        for (key, value) in overrides {
            var value = value
            if key == "ttl", case .number(let literal) = value, let nanoseconds = Int64(literal) {
                value = .string(durationString(nanoseconds: nanoseconds))
            }
            if let index = result.firstIndex(where: { $0.key == key }) {
                result[index].value = value
            } else {
                result.append((key, value))
            }
        }
        return result
    }
}
