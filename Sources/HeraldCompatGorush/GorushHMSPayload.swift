import HeraldCore

/// A gorush Huawei notification (platform 3) as the Push Kit `message` Herald's `hms` provider
/// sends (without its tokens, which the provider adds per batch), built as gorush builds it with
/// go-hms-push's defaults: `android.urgency` `NORMAL` (`HIGH` for `priority: high`), `android.ttl`
/// `86400s` unless `huawei_ttl`, `huawei_collapse_key`, `category`, `bi_tag`, `fast_app_target`,
/// `huawei_data` as the message's data, and a notification (gorush's `huawei_notification`, or
/// the default one) when there is a title, message, image or sound.
enum GorushHMSPayload {
    static func payload(for notification: GorushNotification) -> PreparedPayload {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        if let data = notification.nonEmpty("huawei_data") {
            writer.key("data")
            writer.string(data)
        }
        writer.key("android")
        writer.beginObject()
        if let collapseKey = notification.integer("huawei_collapse_key"), collapseKey != 0 {
            writer.key("collapse_key")
            writer.number(collapseKey)
        }
        writer.key("urgency")
        writer.string(notification.string("priority") == "high" ? "HIGH" : "NORMAL")
        if let category = notification.nonEmpty("category") {
            writer.key("category")
            writer.string(category)
        }
        writer.key("ttl")
        writer.string(notification.nonEmpty("huawei_ttl") ?? "86400s")
        if let tag = notification.nonEmpty("bi_tag") {
            writer.key("bi_tag")
            writer.string(tag)
        }
        if let target = notification.integer("fast_app_target"), target != 0 {
            writer.key("fast_app_target")
            writer.number(target)
        }
        writeNotification(notification, to: &writer)
        writer.endObject()
        writer.endObject()
        return PreparedPayload(body: writer.text, label: "gorush", reference: notification.notificationID)
    }

    /// gorush's `huawei_notification` (its click action defaulted), else go-hms-push's default
    /// notification when the request has a title, message, image or sound; the request's title,
    /// message, image and sound then override its own.
    private static func writeNotification(_ notification: GorushNotification, to writer: inout JSONWriter) {
        let title = notification.nonEmpty("title")
        let message = notification.nonEmpty("message")
        let image = notification.nonEmpty("image")
        let sound: String? = if case .string(let text)? = notification.values["sound"], !text.isEmpty { text } else { nil }
        var fields: [(key: String, value: BodyValue)]
        if let given = notification.object("huawei_notification") {
            fields = given
            if !fields.contains(where: { $0.key == "click_action" }) { fields.append(("click_action", Self.defaultClickAction)) }
        } else if title != nil || message != nil || image != nil || sound != nil {
            fields = [
                ("default_sound", .bool(true)), ("importance", .string("NORMAL")), ("click_action", Self.defaultClickAction),
                ("use_default_vibrate", .bool(true)), ("use_default_light", .bool(true)), ("visibility", .string("PRIVATE")),
                ("foreground_show", .bool(true)), ("auto_cancel", .bool(true)),
            ]
        } else {
            return
        }
        func set(_ key: String, _ value: BodyValue) {
            if let index = fields.firstIndex(where: { $0.key == key }) { fields[index].value = value } else { fields.append((key, value)) }
        }
        if let message { set("body", .string(message)) }
        if let title { set("title", .string(title)) }
        if let image { set("image", .string(image)) }
        if let sound { set("sound", .string(sound)) } else { set("default_sound", .bool(true)) }
        writer.key("notification")
        BodyValue.object(fields).write(to: &writer)
    }

    /// go-hms-push's default: open the app by an action.
    static let defaultClickAction = BodyValue.object([("type", .number("1")), ("action", .string("Action"))])
}
