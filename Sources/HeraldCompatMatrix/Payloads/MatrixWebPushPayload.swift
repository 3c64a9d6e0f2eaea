import HeraldCore

/// A Matrix notification as the Web Push message Sygnal's `webpushpushkin.py` sends a browser
/// (compat.md §8.6): the JSON the service worker decrypts, with its `TTL`, `Urgency` and `Topic`.
///
/// The headers travel in the prepared payload (``headerTTL``, ``headerUrgency``, ``headerTopic``)
/// for the Web Push provider, which encrypts the body for the subscription (RFC 8291).
///
/// With `only_last_per_room`, the room id is the message's collapse key: the provider sends the
/// first 32 characters of its SHA-256 in base64url as the `Topic`, as for any collapse key that is
/// no valid topic. **Herald**: Sygnal sends 22 bytes of BLAKE2s in padded base64url, whose `=` is
/// outside the alphabet RFC 8030 allows.
enum MatrixWebPushPayload {
    /// Longest `content.body` kept, in Unicode scalars, as Sygnal's `MAX_BODY_LENGTH`: a Web Push
    /// message must stay under 4096 bytes once encrypted.
    static let maxBodyLength = 1000
    /// Longest `content.ciphertext` kept (an encrypted event's); a longer one is left out.
    static let maxCiphertextLength = 2000
    /// The prepared payload's header for the message's `TTL`, in seconds.
    static let headerTTL = "ttl"
    /// The prepared payload's header for its `Urgency` (`low` or `normal`).
    static let headerUrgency = "urgency"
    /// The prepared payload's header for its `Topic`: a collapse key, which the Web Push provider
    /// makes into a topic as it does an event's `collapseKey`.
    static let headerTopic = "topic"
    /// The `TTL` when the app sets none, as Sygnal's default: 15 minutes.
    static let defaultTTL = 900

    /// The message for `device`, or `nil` when it is dropped: a notification without an
    /// `event_id` (a badge update) for an app or pusher that wants events only.
    ///
    /// `eventsOnly` and `onlyLastPerRoom` are the app's settings; a pusher's `data` may also ask
    /// for either with `true`, as Sygnal reads them there.
    static func payload(
        for notification: MatrixNotification, device: MatrixDevice, ttl: Int, eventsOnly: Bool, onlyLastPerRoom: Bool
    ) -> PreparedPayload? {
        let wantsEventsOnly = eventsOnly || MatrixPayloadFields.value("events_only", in: device.data) == .bool(true)
        if wantsEventsOnly && (notification.eventID ?? "").isEmpty { return nil }
        var headers = [headerTTL: String(max(0, ttl)), headerUrgency: notification.prio == .low ? "low" : "normal"]
        let lastPerRoom = onlyLastPerRoom || MatrixPayloadFields.value("only_last_per_room", in: device.data) == .bool(true)
        if lastPerRoom, let roomID = notification.roomID, !roomID.isEmpty { headers[headerTopic] = roomID }
        return PreparedPayload(
            body: BodyValue.object(body(for: notification, device: device)).jsonText, headers: headers, label: "matrix",
            reference: notification.eventID)
    }

    /// The decrypted message: `default_payload`'s keys, then the notification's fields that are
    /// given (as Sygnal keeps only truthy ones), the counts, and `content` without `formatted_body`.
    static func body(for notification: MatrixNotification, device: MatrixDevice) -> [(key: String, value: BodyValue)] {
        var members = device.defaultPayload ?? []
        let fields: [(String, String?)] = [
            ("room_id", notification.roomID), ("room_name", notification.roomName), ("room_alias", notification.roomAlias),
            ("membership", notification.membership), ("event_id", notification.eventID), ("sender", notification.sender),
            ("sender_display_name", notification.senderDisplayName),
        ]
        for (key, value) in fields {
            if let value, !value.isEmpty { MatrixPayloadFields.set(key, .string(value), in: &members) }
        }
        if notification.userIsTarget { MatrixPayloadFields.set("user_is_target", .bool(true), in: &members) }
        if let type = notification.type, !type.isEmpty { MatrixPayloadFields.set("type", .string(type), in: &members) }
        if let unread = notification.unread { MatrixPayloadFields.set("unread", .number(String(unread)), in: &members) }
        if let missedCalls = notification.missedCalls { MatrixPayloadFields.set("missed_calls", .number(String(missedCalls)), in: &members) }
        if let content = notification.content, !content.isEmpty {
            var kept: [(key: String, value: BodyValue)] = []
            for (key, value) in content where key != "formatted_body" {
                switch (key, value) {
                case ("body", .string(let body)) where body.unicodeScalars.count > maxBodyLength:
                    kept.append((key, .string(MatrixPayloadFields.prefix(body, scalars: maxBodyLength - 1) + "…")))
                case ("ciphertext", .string(let ciphertext)) where ciphertext.unicodeScalars.count > maxCiphertextLength:
                    continue
                default:
                    kept.append((key, value))
                }
            }
            MatrixPayloadFields.set("content", .object(kept), in: &members)
        }
        return members
    }

    /// The subscription Web Push sends to: the pushkey is its `p256dh` key, the pusher's `data`
    /// holds `endpoint` and `auth`; `nil` when any is missing (the pushkey is then rejected).
    static func subscription(for device: MatrixDevice) -> String? {
        guard !device.pushkey.isEmpty,
            case .string(let endpoint)? = MatrixPayloadFields.value("endpoint", in: device.data),
            case .string(let auth)? = MatrixPayloadFields.value("auth", in: device.data)
        else { return nil }
        let keys = BodyValue.object([("p256dh", .string(device.pushkey)), ("auth", .string(auth))])
        return BodyValue.object([("endpoint", .string(endpoint)), ("keys", keys)]).jsonText
    }

}
