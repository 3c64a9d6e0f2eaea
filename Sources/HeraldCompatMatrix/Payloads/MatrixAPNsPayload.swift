import HeraldCore

/// A Matrix notification as the APNs payload and headers Herald sends to one device (compat.md §8.4).
///
/// The payload is the one Sygnal's `apnspushkin.py` builds, key for key, so that iOS apps written
/// against Sygnal (their localizable `loc-key`s, their notification service extensions reading
/// `room_id` and `event_id`) work unchanged. Where the two differ, the comment says "Herald".
enum MatrixAPNsPayload {
    /// The longest sender or room name in `loc-args`, in characters (Sygnal's `MAX_FIELD_LENGTH`).
    static let maximumFieldLength = 1024
    /// The largest payload APNs takes, in bytes (Sygnal's `MAX_JSON_BODY_SIZE`, compat.md §1.2).
    static let maximumPayloadBytes = 4096
    /// The fewest token bytes a pushkey must decode to (compat.md §8.3).
    static let minimumTokenBytes = 32
    /// The label Matrix deliveries count under in dead-letter filters and logs.
    static let label = "matrix"

    /// The payload for `device`, or `nil` when there is nothing to send: a full notification with
    /// neither a `loc-key` nor a badge, or a device whose `default_payload` is not an object (the
    /// caller rejects that pushkey beforehand, see ``MatrixDevice/defaultPayload``).
    ///
    /// `sendBadgeCounts` is the app's `send_badge_counts` (default `true`); `pushType` its `push_type`
    /// (`nil`: `alert`, or `background` when `aps` holds only `content-available`). `apns-priority` is
    /// 5 for `prio: low`, else 10; **Herald** also sends 5 for a `background` push, which APNs refuses
    /// at 10 (compat.md §1.2), where Sygnal would send 10 and fail.
    static func payload(
        for notification: MatrixNotification, device: MatrixDevice, sendBadgeCounts: Bool, pushType: String?
    ) -> PreparedPayload? {
        guard let defaultPayload = device.defaultPayload else { return nil }
        let built: [(key: String, value: BodyValue)]?
        if notification.isEventIDOnly {
            built = eventIDOnlyPayload(notification, defaultPayload: defaultPayload, sendBadgeCounts: sendBadgeCounts)
        } else {
            built = fullPayload(notification, defaultPayload: defaultPayload, sendBadgeCounts: sendBadgeCounts)
        }
        guard let built else { return nil }
        let members = truncated(built, maximumBytes: maximumPayloadBytes)
        let configured = pushType.flatMap { $0.isEmpty ? nil : $0 }
        let type = configured ?? (hasOnlyContentAvailable(members) ? "background" : "alert")
        let priority = notification.prio == .low || type == "background" ? "5" : "10"
        return PreparedPayload(
            body: BodyValue.object(members).jsonText, headers: ["apns-priority": priority, "apns-push-type": type],
            label: label, reference: notification.eventID)
    }

    // MARK: - The two forms

    /// The event-id-only form: `default_payload` (a shallow copy, as Sygnal's `dict.update`) with
    /// `room_id`, `event_id` and, with badge counts, `unread_count` and `missed_calls` set over it.
    static func eventIDOnlyPayload(
        _ notification: MatrixNotification, defaultPayload: [(key: String, value: BodyValue)], sendBadgeCounts: Bool
    ) -> [(key: String, value: BodyValue)] {
        var payload = defaultPayload
        if let roomID = nonEmpty(notification.roomID) { MatrixPayloadFields.set("room_id", .string(roomID), in: &payload) }
        if let eventID = nonEmpty(notification.eventID) { MatrixPayloadFields.set("event_id", .string(eventID), in: &payload) }
        if sendBadgeCounts {
            if let unread = notification.unread { MatrixPayloadFields.set("unread_count", .number(String(unread)), in: &payload) }
            if let missed = notification.missedCalls { MatrixPayloadFields.set("missed_calls", .number(String(missed)), in: &payload) }
        }
        return payload
    }

    /// The full form: `aps.alert.loc-key` and `loc-args` from the event, `aps.badge` from the counts,
    /// laid over a copy of `default_payload`; `nil` when there is neither an alert nor a badge.
    ///
    /// As in Sygnal, `default_payload` is used only when the notification has a `type`, so a badge-only
    /// update is `{"aps":{"badge":N}}` alone (`test_expected_badge_only_with_default_payload`), and only
    /// `aps` and `aps.alert` are merged into: the default's other keys stay, the ones set here replace
    /// theirs. **Herald** replaces an `aps` or `alert` that is not an object, where Sygnal would fail.
    static func fullPayload(
        _ notification: MatrixNotification, defaultPayload: [(key: String, value: BodyValue)], sendBadgeCounts: Bool
    ) -> [(key: String, value: BodyValue)]? {
        let locAlert = localizedAlert(for: notification)
        var badge: Int?
        if sendBadgeCounts, notification.unread != nil || notification.missedCalls != nil {
            let (sum, overflow) = (notification.unread ?? 0).addingReportingOverflow(notification.missedCalls ?? 0)
            badge = overflow ? Int.max : sum
        }
        guard locAlert != nil || badge != nil else { return nil }

        var payload = nonEmpty(notification.type) == nil ? [] : defaultPayload
        var aps = objectMembers(MatrixPayloadFields.value("aps", in: payload))
        if let locAlert {
            var alert = objectMembers(MatrixPayloadFields.value("alert", in: aps))
            MatrixPayloadFields.set("loc-key", .string(locAlert.key), in: &alert)
            MatrixPayloadFields.set("loc-args", .array(locAlert.args.map { BodyValue.string($0) }), in: &alert)
            MatrixPayloadFields.set("alert", .object(alert), in: &aps)
        }
        if let badge { MatrixPayloadFields.set("badge", .number(String(badge)), in: &aps) }
        MatrixPayloadFields.set("aps", .object(aps), in: &payload)
        if locAlert != nil {
            if let roomID = nonEmpty(notification.roomID) { MatrixPayloadFields.set("room_id", .string(roomID), in: &payload) }
            if let eventID = nonEmpty(notification.eventID) { MatrixPayloadFields.set("event_id", .string(eventID), in: &payload) }
        }
        return payload
    }

    // MARK: - The loc-key table

    /// The `loc-key` and `loc-args` for the notification's `type`, or `nil` when it shows no alert
    /// (no type, or an `m.room.member` event other than an invite of the user).
    static func localizedAlert(for notification: MatrixNotification) -> (key: String, args: [String])? {
        let from = sender(of: notification)
        switch notification.type {
        case "m.room.message"?, "m.room.encrypted"?:
            return messageAlert(for: notification, from: from)
        case "m.call.invite"?:
            return (isVideoCall(notification) ? "VIDEO_CALL_FROM_USER" : "VOICE_CALL_FROM_USER", [from])
        case "m.room.member"?:
            // Sygnal shows nothing for other membership changes: not even `MSG_FROM_USER`.
            guard notification.userIsTarget, notification.membership == "invite" else { return nil }
            if let room = roomName(of: notification) { return ("USER_INVITE_TO_NAMED_ROOM", [from, room]) }
            return ("USER_INVITE_TO_CHAT", [from])
        case let type?:
            // A type Sygnal does not know, yet important enough for the homeserver to push.
            guard !type.isEmpty else { return nil }
            return ("MSG_FROM_USER", [from])
        case nil:
            return nil
        }
    }

    /// The alert of a message: content, action (`m.emote`) or image, in a named room or not.
    private static func messageAlert(for notification: MatrixNotification, from: String) -> (key: String, args: [String]) {
        var contentText: String?
        var actionText: String?
        var isImage = false
        // Sygnal takes `body` whatever its type; Herald only a string, which is all APNs can show.
        if let content = notification.content, let msgtype = MatrixPayloadFields.value("msgtype", in: content),
            case .string(let body)? = MatrixPayloadFields.value("body", in: content)
        {
            switch msgtype {
            case .string("m.text"): contentText = body
            case .string("m.emote"): actionText = body
            // Any other msgtype's `body` is still text meant for people.
            default: contentText = body
            }
            isImage = msgtype == .string("m.image")
        }
        let content = nonEmpty(contentText)
        let action = nonEmpty(actionText)
        if let room = roomName(of: notification) {
            if isImage { return ("IMAGE_FROM_USER_IN_ROOM", [from, contentText ?? "", room]) }
            if let content { return ("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", [from, room, content]) }
            if let action { return ("ACTION_FROM_USER_IN_ROOM", [room, from, action]) }
            return ("MSG_FROM_USER_IN_ROOM", [from, room])
        }
        if isImage { return ("IMAGE_FROM_USER", [from, contentText ?? ""]) }
        if let content { return ("MSG_FROM_USER_WITH_CONTENT", [from, content]) }
        if let action { return ("ACTION_FROM_USER", [from, action]) }
        return ("MSG_FROM_USER", [from])
    }

    /// Whether a call invite offers video: its SDP has an `m=video` line (WebRTC calls only, as in Sygnal).
    private static func isVideoCall(_ notification: MatrixNotification) -> Bool {
        guard let content = notification.content, case .object(let offer)? = MatrixPayloadFields.value("offer", in: content),
            case .string(let sdp)? = MatrixPayloadFields.value("sdp", in: offer)
        else { return false }
        return sdp.contains("m=video")
    }

    /// The `from` argument: the display name, else the user id, else a space; cut to 1024 characters.
    ///
    /// **Herald** skips an empty display name for the user id; Sygnal would show the empty name when
    /// a user id is there too (`elif n.sender_display_name is not None`), which is evidently not meant.
    static func sender(of notification: MatrixNotification) -> String {
        let name = nonEmpty(notification.senderDisplayName) ?? nonEmpty(notification.sender) ?? " "
        return MatrixPayloadFields.prefix(name, scalars: maximumFieldLength)
    }

    /// The room argument: `room_name`, else `room_alias`, cut to 1024 characters; `nil` for neither.
    ///
    /// Only the sender and the room are cut, as in Sygnal: a message body is left whole here and only
    /// shortened, if need be, by ``truncated(_:maximumBytes:)``.
    static func roomName(of notification: MatrixNotification) -> String? {
        guard let room = nonEmpty(notification.roomName) ?? nonEmpty(notification.roomAlias) else { return nil }
        return MatrixPayloadFields.prefix(room, scalars: maximumFieldLength)
    }

    // MARK: - Size

    /// `payload` cut to `maximumBytes` bytes of compact JSON the way Sygnal's `apnstruncate.py` does:
    /// one character at a time from the longest (in UTF-8 bytes; the first of equals) of `aps.alert`
    /// when it is a string, else `aps.alert.body` and each `aps.alert.loc-args` entry.
    ///
    /// Only strings are shortened (Sygnal would fail on another value). A payload that still does not
    /// fit is returned as it is, so that the APNs provider refuses it and the failure is recorded in the
    /// feedback log, where Sygnal raised `BodyTooLongException`. **Herald** measures the compact JSON
    /// it sends; Sygnal measured `json.dumps` with its default `", "` and `": "` separators.
    static func truncated(_ payload: [(key: String, value: BodyValue)], maximumBytes: Int) -> [(key: String, value: BodyValue)] {
        let size = BodyValue.object(payload).jsonText.utf8.count
        guard size > maximumBytes, let apsIndex = payload.lastIndex(where: { $0.key == "aps" }),
            case .object(var aps) = payload[apsIndex].value, let alertIndex = aps.lastIndex(where: { $0.key == "alert" })
        else { return payload }
        let excess = size - maximumBytes
        switch aps[alertIndex].value {
        case .string(let text):
            aps[alertIndex].value = .string(shortened([text], by: excess)[0])
        case .object(var alert):
            var texts: [String] = []
            let bodyIndex = alert.lastIndex(where: { $0.key == "body" })
            var bodyIsText = false
            if let bodyIndex, case .string(let body) = alert[bodyIndex].value {
                texts.append(body)
                bodyIsText = true
            }
            let argsIndex = alert.lastIndex(where: { $0.key == "loc-args" })
            var args: [BodyValue] = []
            if let argsIndex, case .array(let elements) = alert[argsIndex].value { args = elements }
            var textArgs: [Int] = []
            for (position, arg) in args.enumerated() {
                guard case .string(let text) = arg else { continue }
                texts.append(text)
                textArgs.append(position)
            }
            guard !texts.isEmpty else { return payload }
            let shortTexts = shortened(texts, by: excess)
            var next = 0
            if let bodyIndex, bodyIsText {
                alert[bodyIndex].value = .string(shortTexts[next])
                next += 1
            }
            for position in textArgs {
                args[position] = .string(shortTexts[next])
                next += 1
            }
            if let argsIndex, !textArgs.isEmpty { alert[argsIndex].value = .array(args) }
            aps[alertIndex].value = .object(alert)
        default:
            return payload
        }
        var result = payload
        result[apsIndex].value = .object(aps)
        return result
    }

    /// `texts` shortened until their JSON strings are together `excess` bytes shorter, or all empty:
    /// each step drops the last Unicode scalar (Sygnal's `txt[:-1]` on a Python string) of the longest.
    ///
    /// The JSON size is kept up to date from each dropped scalar's escaped width instead of encoding
    /// the payload again after every character, which for a long body would take quadratic time.
    private static func shortened(_ texts: [String], by excess: Int) -> [String] {
        var scalars = texts.map { Array($0.unicodeScalars) }
        var lengths = texts.map { $0.utf8.count }
        var remaining = excess
        while remaining > 0 {
            var longest: Int?
            var longestLength = 0
            for index in lengths.indices where lengths[index] > longestLength {
                longest = index
                longestLength = lengths[index]
            }
            guard let index = longest else { break }
            let dropped = scalars[index].removeLast()
            lengths[index] -= MatrixPayloadFields.utf8Width(dropped)
            remaining -= escapedWidth(dropped)
        }
        return scalars.map { String(String.UnicodeScalarView($0)) }
    }

    /// How many bytes `scalar` takes inside a JSON string as ``JSONWriter`` writes it.
    private static func escapedWidth(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D: 2
        case ..<0x20: 6
        default: MatrixPayloadFields.utf8Width(scalar)
        }
    }

    // MARK: - Headers and token

    /// Whether `aps` holds `content-available` and nothing else: a background push.
    static func hasOnlyContentAvailable(_ payload: [(key: String, value: BodyValue)]) -> Bool {
        guard case .object(let aps)? = MatrixPayloadFields.value("aps", in: payload) else { return false }
        return !aps.isEmpty && aps.allSatisfy { $0.key == "content-available" }
    }

    /// The APNs device token for `pushkey`: the base64 it is decoded to lower-case hex, or with
    /// `convertToHex: false` (`convert_device_token_to_hex`) the pushkey as it is.
    ///
    /// `nil` means the pushkey is malformed and is rejected (compat.md §8.3): not base64, fewer than
    /// 32 bytes, or empty. **Herald** is stricter than Sygnal, whose `base64.b64decode` takes any
    /// length (its tests use the 3-byte `spqr`) and skips characters outside the alphabet; Herald takes
    /// the URL-safe alphabet too and does not require the `=` padding.
    static func token(fromPushkey pushkey: String, convertToHex: Bool) -> String? {
        guard convertToHex else { return pushkey.isEmpty ? nil : pushkey }
        guard let bytes = Base64URL.decode(pushkey), bytes.count >= minimumTokenBytes else { return nil }
        return Hex.lowercase(bytes)
    }

    // MARK: - Helpers

    /// `text` unless it is `nil` or empty: Python's truthiness, which Sygnal's tests rely on.
    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// The members of `value` when it is an object, else none.
    private static func objectMembers(_ value: BodyValue?) -> [(key: String, value: BodyValue)] {
        if case .object(let members)? = value { members } else { [] }
    }
}
