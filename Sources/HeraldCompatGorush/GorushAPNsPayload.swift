import HeraldCore

/// A gorush iOS notification as the APNs payload and headers Herald sends (compat.md §6.4).
enum GorushAPNsPayload {
    /// The keys of gorush's `alert` object copied into `aps.alert`, after `title` and `body`.
    static let alertKeys = [
        "subtitle", "action", "action-loc-key", "launch-image", "loc-key", "loc-args", "title-loc-key", "title-loc-args",
        "summary-arg", "summary-arg-count",
    ]
    /// Live Activity keys copied into `aps` when non-zero.
    static let liveActivityKeys = [
        "content-state", "timestamp", "event", "stale-date", "dismissal-date", "attributes-type", "attributes", "relevance-score",
    ]

    /// The payload for `notification`.
    static func payload(for notification: GorushNotification) -> PreparedPayload {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writeAlert(notification, to: &writer)
        if let badge = notification.integer("badge"), badge >= 0 {
            writer.key("badge")
            writer.number(badge)
        }
        if let category = notification.nonEmpty("category") {
            writer.key("category")
            writer.string(category)
        }
        if notification.bool("content_available") {
            writer.key("content-available")
            writer.number(1)
        }
        if let level = notification.nonEmpty("interruption_level") {
            writer.key("interruption-level")
            writer.string(level)
        }
        if notification.bool("mutable_content") {
            writer.key("mutable-content")
            writer.number(1)
        }
        writeSound(notification, to: &writer)
        if let thread = notification.nonEmpty("thread-id") {
            writer.key("thread-id")
            writer.string(thread)
        }
        let urlArgs = notification.strings("url-args")
        if !urlArgs.isEmpty {
            writer.key("url-args")
            writer.beginArray()
            for argument in urlArgs { writer.string(argument) }
            writer.endArray()
        }
        for key in liveActivityKeys {
            guard let value = notification.values[key], !isZero(value) else { continue }
            writer.key(key)
            value.write(to: &writer)
        }
        writer.endObject()
        for (key, value) in notification.object("data") ?? [] where key != "aps" {
            writer.key(key)
            value.write(to: &writer)
        }
        writer.endObject()

        var headers: [String: String] = [:]
        if let topic = notification.nonEmpty("topic") { headers["apns-topic"] = topic }
        if let id = notification.nonEmpty("apns_id") { headers["apns-id"] = id }
        if let collapse = notification.nonEmpty("collapse_id") { headers["apns-collapse-id"] = collapse }
        if let expiration = notification.integer("expiration") { headers["apns-expiration"] = String(expiration) }
        switch notification.string("priority") {
        case "normal": headers["apns-priority"] = "5"
        case "high": headers["apns-priority"] = "10"
        default: break
        }
        if let pushType = notification.nonEmpty("push_type") { headers["apns-push-type"] = pushType }
        // gorush picks its production client first, then its development one, else the configured default.
        if notification.bool("production") {
            headers[PreparedPayload.apnsEnvironmentHeader] = "production"
        } else if notification.bool("development") {
            headers[PreparedPayload.apnsEnvironmentHeader] = "sandbox"
        }
        return PreparedPayload(
            body: writer.text, headers: headers, expiration: nil, label: "gorush", reference: notification.notificationID)
    }

    /// gorush's alert rule: a plain string when there is no title and no alert key, else a dictionary.
    private static func writeAlert(_ notification: GorushNotification, to writer: inout JSONWriter) {
        let title = notification.nonEmpty("title")
        let message = notification.nonEmpty("message")
        let alert = notification.object("alert") ?? []
        func alertString(_ key: String) -> String? {
            guard case .string(let text)? = alert.first(where: { $0.key == key })?.value, !text.isEmpty else { return nil }
            return text
        }
        let hasAlertKey = alert.contains { member in
            if case .string(let text) = member.value { return !text.isEmpty }
            if case .array(let items) = member.value { return !items.isEmpty }
            if case .null = member.value { return false }
            return true
        }
        if title == nil && !hasAlertKey {
            guard let message else { return }
            writer.key("alert")
            writer.string(message)
            return
        }
        writer.key("alert")
        writer.beginObject()
        if let title = alertString("title") ?? title {
            writer.key("title")
            writer.string(title)
        }
        if let body = alertString("body") ?? (title != nil ? message : nil) {
            writer.key("body")
            writer.string(body)
        }
        for key in alertKeys {
            guard let value = alert.first(where: { $0.key == key })?.value, !isZero(value) else { continue }
            writer.key(key)
            value.write(to: &writer)
        }
        writer.endObject()
    }

    /// A string → `aps.sound`; an object → a sound dictionary with its non-zero `critical`, `name`
    /// and `volume`; gorush's top-level `name` and `volume` set the dictionary's.
    private static func writeSound(_ notification: GorushNotification, to writer: inout JSONWriter) {
        var critical: BodyValue?
        var name: BodyValue?
        var volume: BodyValue?
        switch notification.values["sound"] {
        case .string(let text)? where !text.isEmpty:
            if notification.nonEmpty("name") == nil && notification.number("volume") == nil {
                writer.key("sound")
                writer.string(text)
                return
            }
            name = .string(text)
        case .object(let members)?:
            for (key, value) in members where !isZero(value) {
                switch key {
                case "critical": critical = value
                case "name": name = value
                case "volume": volume = value
                default: break
                }
            }
        default:
            break
        }
        if let top = notification.nonEmpty("name") { name = .string(top) }
        if let top = notification.number("volume"), !isZero(.number(top)) { volume = .number(top) }
        guard critical != nil || name != nil || volume != nil else { return }
        writer.key("sound")
        writer.beginObject()
        for (key, value) in [("critical", critical), ("name", name), ("volume", volume)] {
            guard let value else { continue }
            writer.key(key)
            value.write(to: &writer)
        }
        writer.endObject()
    }

    /// Go's zero values, which gorush leaves out (`omitempty`).
    static func isZero(_ value: BodyValue) -> Bool {
        switch value {
        case .null: true
        case .string(let text): text.isEmpty
        case .number(let literal): Double(literal) == 0
        case .bool(let flag): !flag
        case .array(let items): items.isEmpty
        case .object(let members): members.isEmpty
        }
    }
}
