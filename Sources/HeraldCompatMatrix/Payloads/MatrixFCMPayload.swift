import HeraldCore

/// A Matrix notification as the FCM HTTP v1 message Herald sends to one device (compat.md §8.5, §1.3),
/// without its target: the FCM provider adds `token`, the pushkey.
///
/// The message is the one Sygnal's `gcmpushkin.py` (`api_version: v1`) builds, key for key, so that
/// Android apps written against Sygnal read the same `data`. Where the two differ, the comment says "Herald".
enum MatrixFCMPayload {
    /// The longest text field in `data`, in UTF-8 bytes (Sygnal's `MAX_BYTES_PER_FIELD`).
    static let maximumFieldBytes = 1024
    /// The label Matrix deliveries count under in dead-letter filters and logs.
    static let label = "matrix"
    /// Message fields that name the target: the provider sets the target itself and refuses a
    /// prepared message that already has one, so these are dropped from `fcm_options`.
    static let targetKeys: Set<String> = ["token", "topic", "condition"]

    /// The message for `device`, or `nil` when there is nothing to send: a badge-only notification
    /// without counts, or a device whose `default_payload` is not an object (the caller rejects that
    /// pushkey beforehand, see ``MatrixDevice/defaultPayload``).
    ///
    /// `fcmOptions` is the app's `fcm_options`: the message starts as it, as in Sygnal, then `data` is
    /// set and `android.priority` set within its `android` (`normal` for `prio: low`, else `high`).
    /// **Herald** leaves out its `token`, `topic` and `condition`, which the provider sets.
    static func payload(
        for notification: MatrixNotification, device: MatrixDevice, fcmOptions: [(key: String, value: BodyValue)]
    ) -> PreparedPayload? {
        guard let strings = data(for: notification, device: device) else { return nil }
        var message = MatrixPayloadFields.deduplicated(fcmOptions).filter { !targetKeys.contains($0.key) }
        MatrixPayloadFields.set("data", .object(strings), in: &message)
        var android: [(key: String, value: BodyValue)] = []
        if case .object(let members)? = MatrixPayloadFields.value("android", in: message) { android = members }
        MatrixPayloadFields.set("priority", .string(notification.prio == .low ? "normal" : "high"), in: &android)
        MatrixPayloadFields.set("android", .object(android), in: &message)
        return PreparedPayload(body: BodyValue.object(message).jsonText, label: label, reference: notification.eventID)
    }

    /// The message's `data`, every value a string, or `nil` when there is nothing to send.
    ///
    /// In Sygnal's order: `default_payload`'s keys; `event_id`, `type`, `sender`, `room_name`,
    /// `room_alias`, `membership`, `sender_display_name`, `room_id` when given (an empty string too),
    /// each cut to 1024 bytes; `content_<key>` for each key of `content`; `prio` (`normal` or `high`);
    /// `unread` and `missed_calls`. A key set again keeps its place, as in a Python dict.
    ///
    /// **Herald** departs from Sygnal in three places, as compat.md §8.5 and §1.3 say: a `content`
    /// value that is not a string is sent as its JSON text (Sygnal leaves it out), also cut to
    /// 1024 bytes; `unread` and `missed_calls` are sent whenever given, `0` included (Sygnal leaves a
    /// zero out); and the values of `default_payload` that are not strings are sent as their JSON
    /// text, and the keys FCM reserves left out (``FCMData/strings(_:)``), where FCM refused them.
    static func data(for notification: MatrixNotification, device: MatrixDevice) -> [(key: String, value: BodyValue)]? {
        guard let defaultPayload = device.defaultPayload else { return nil }
        var data = defaultPayload
        let fields: [(key: String, value: String?)] = [
            (key: "event_id", value: notification.eventID), (key: "type", value: notification.type),
            (key: "sender", value: notification.sender), (key: "room_name", value: notification.roomName),
            (key: "room_alias", value: notification.roomAlias), (key: "membership", value: notification.membership),
            (key: "sender_display_name", value: notification.senderDisplayName),
        ]
        for field in fields {
            guard let text = field.value else { continue }
            MatrixPayloadFields.set(field.key, .string(cut(text)), in: &data)
        }
        // `content` takes its place before `room_id`, as in Sygnal, only to be replaced by the
        // `content_` keys at the end; a `default_payload.content` object is flattened the same way.
        if let content = notification.content { MatrixPayloadFields.set("content", .object(content), in: &data) }
        if let roomID = notification.roomID { MatrixPayloadFields.set("room_id", .string(cut(roomID)), in: &data) }
        if let index = data.firstIndex(where: { $0.key == "content" }), case .object(let content) = data[index].value {
            data.remove(at: index)
            for (key, value) in content {
                MatrixPayloadFields.set("content_" + key, .string(cut(text(of: value))), in: &data)
            }
        }
        MatrixPayloadFields.set("prio", .string(notification.prio == .low ? "normal" : "high"), in: &data)

        var counts: [(key: String, value: BodyValue)] = []
        if let unread = notification.unread { counts.append((key: "unread", value: .string(String(unread)))) }
        if let missed = notification.missedCalls { counts.append((key: "missed_calls", value: .string(String(missed)))) }
        // A badge-only update (no event) without counts tells the app nothing (Sygnal: "Discarding data").
        let names = MatrixPayloadFields.isTruthy(MatrixPayloadFields.value("room_id", in: data))
            || MatrixPayloadFields.isTruthy(MatrixPayloadFields.value("event_id", in: data))
        guard names || !counts.isEmpty else { return nil }
        for count in counts { MatrixPayloadFields.set(count.key, count.value, in: &data) }
        return FCMData.strings(data)
    }

    /// `text` cut to 1024 UTF-8 bytes, ending in `…` when it was cut (Sygnal's `truncate_str`).
    static func cut(_ text: String) -> String {
        MatrixPayloadFields.prefix(text, utf8Bytes: maximumFieldBytes)
    }

    /// A string as it is; any other value as its compact JSON text (compat.md §1.3).
    private static func text(of value: BodyValue) -> String {
        if case .string(let text) = value { return text }
        return value.jsonText
    }
}
