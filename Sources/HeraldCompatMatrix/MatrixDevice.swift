import HeraldCore

/// One entry of a notification's `devices`: a pusher the homeserver wants this notification sent to
/// (compat.md §8.2).
///
/// Decoded with the type checks of Sygnal's `Device` (`sygnal/notifications.py`): `app_id` and
/// `pushkey` must be strings, `pushkey_ts` an integer, `data` and `tweaks` objects, `tweaks.sound`
/// a string; anything else is `M_BAD_JSON`. **Herald** reads an explicit `null` as "not given"
/// where Sygnal refuses it, since Synapse never sends one and refusing would lose the push.
struct MatrixDevice: Sendable, Equatable {
    /// The pusher's `app_id`, which picks the configured app (exact name or glob).
    var appID: String
    /// The pusher's `pushkey`: for APNs the base64 token, for FCM the registration token.
    var pushkey: String
    /// When the pushkey was last updated (`pushkey_ts`), if given.
    var pushkeyTS: Int64?
    /// The pusher's `data` members, duplicate keys merged (empty when absent).
    var data: [(key: String, value: BodyValue)]
    /// The pusher's `tweaks` members (empty when absent).
    var tweaks: [(key: String, value: BodyValue)]

    /// Reads one element of `devices`.
    init(_ value: BodyValue) throws(MatrixRequestError) {
        guard case .object = value else { throw .invalidField("Device is not an object") }
        guard case .string(let appID)? = value["app_id"] else { throw .invalidField("Device with missing or non-string app_id") }
        guard case .string(let pushkey)? = value["pushkey"] else { throw .invalidField("Device with missing or non-string pushkey") }
        self.appID = appID
        self.pushkey = pushkey
        switch value["pushkey_ts"] {
        case nil, .null?: pushkeyTS = nil
        case .number(let literal)?:
            guard let stamp = Int64(literal) else { throw .invalidField("pushkey_ts is of invalid type") }
            pushkeyTS = stamp
        default: throw .invalidField("pushkey_ts is of invalid type")
        }
        data = try Self.object("data", in: value)
        tweaks = try Self.object("tweaks", in: value)
        switch MatrixPayloadFields.value("sound", in: tweaks) {
        case nil, .string?, .null?: break
        default: throw .invalidField("sound is of invalid type")
        }
    }

    /// The members of the object under `key`, `[]` when absent or null; any other value is refused.
    private static func object(_ key: String, in value: BodyValue) throws(MatrixRequestError) -> [(key: String, value: BodyValue)] {
        switch value[key] {
        case nil, .null?: return []
        case .object(let members)?: return MatrixPayloadFields.deduplicated(members)
        default: throw .invalidField("\(key) is of invalid type")
        }
    }

    /// `data.format`: `event_id_only` when the pusher asked for event ids only.
    ///
    /// Informational: Synapse honours it by leaving the other fields out of the notification, and the
    /// payload form follows from that (``MatrixNotification/isEventIDOnly``).
    var format: String? {
        if case .string(let format)? = MatrixPayloadFields.value("format", in: data) { format } else { nil }
    }

    /// `data.default_payload`'s members: `[]` when the pusher has none, `nil` when it is there but is
    /// not an object (`null` included).
    ///
    /// Sygnal rejects the pushkey for a `default_payload` that is not an object, without sending
    /// (`test_misconfigured_payload_is_rejected` in `tests/test_apns.py`, `test_misformed_default_payload_rejected`
    /// in `tests/test_gcm.py`), so the caller adds the pushkey to `rejected` when this is `nil`.
    var defaultPayload: [(key: String, value: BodyValue)]? {
        switch MatrixPayloadFields.value("default_payload", in: data) {
        case nil: []
        case .object(let members)?: members
        default: nil
        }
    }

    /// `tweaks.sound`, if given.
    var sound: String? {
        if case .string(let sound)? = MatrixPayloadFields.value("sound", in: tweaks) { sound } else { nil }
    }

    /// Equal when every field is; `data` and `tweaks` are compared member by member, in order.
    static func == (lhs: MatrixDevice, rhs: MatrixDevice) -> Bool {
        lhs.appID == rhs.appID && lhs.pushkey == rhs.pushkey && lhs.pushkeyTS == rhs.pushkeyTS
            && BodyValue.object(lhs.data) == BodyValue.object(rhs.data) && BodyValue.object(lhs.tweaks) == BodyValue.object(rhs.tweaks)
    }
}
