import HeraldCore

/// The `notification` object of a Matrix push gateway request (compat.md §8.2).
///
/// Read as Sygnal's `Notification` reads it (`sygnal/notifications.py`): only `devices`, the devices'
/// fields and `counts` are type-checked, and a refusal is `M_BAD_JSON`. The optional text fields are
/// taken when they are strings; **Herald** reads any other value (`null` included) as "not given",
/// where Sygnal would keep it and fail later while building the payload. Synapse also sends `id`
/// (and, for badge-only updates, `"id": ""` and `"type": null`); `id` is not needed and is ignored.
struct MatrixNotification: Sendable, Equatable {
    /// `prio`: how urgently the homeserver wants it delivered.
    enum Priority: String, Sendable, Equatable {
        /// The default: delivered at once, waking the device.
        case high
        /// `"prio": "low"`: APNs priority 5, FCM `normal`.
        case low
    }

    /// `event_id`: absent in badge-only updates.
    var eventID: String?
    /// `room_id`.
    var roomID: String?
    /// `type` of the event; `nil` when absent or `null` (badge-only updates, event-id-only pushers).
    var type: String?
    /// `sender`, a Matrix user id.
    var sender: String?
    /// `sender_display_name`.
    var senderDisplayName: String?
    /// `room_name`.
    var roomName: String?
    /// `room_alias`.
    var roomAlias: String?
    /// `user_is_target`: the event is about the pushed user (an invite of them); `false` unless `true` is given.
    var userIsTarget: Bool
    /// `membership` (`invite`, `join`, ...).
    var membership: String?
    /// `prio`: ``Priority/low`` only for the string `low`, as Sygnal compares it.
    var prio: Priority
    /// `content`'s members, duplicate keys merged; `nil` when absent or not an object.
    var content: [(key: String, value: BodyValue)]?
    /// `counts.unread`.
    var unread: Int?
    /// `counts.missed_calls`.
    var missedCalls: Int?
    /// `devices`, never empty.
    var devices: [MatrixDevice]

    /// Reads a whole request body: its `notification` object.
    ///
    /// Throws ``MatrixRequestError/notificationNotObject`` when the body is not an object or has no
    /// `notification` object, and what ``init(_:)`` throws.
    init(request body: BodyValue) throws(MatrixRequestError) {
        guard let notification = body["notification"], case .object = notification else { throw .notificationNotObject }
        try self.init(notification)
    }

    /// Reads the value of a request's `notification` key.
    ///
    /// All refusals are `M_BAD_JSON` (compat.md §8.3), told apart by the error for the log:
    /// ``MatrixRequestError/notificationNotObject`` when `value` is not an object,
    /// ``MatrixRequestError/devicesNotList`` when `devices` is missing or not an array,
    /// ``MatrixRequestError/noDevices`` when it is empty, and ``MatrixRequestError/invalidField(_:)``
    /// for a device or a count of the wrong type.
    init(_ value: BodyValue) throws(MatrixRequestError) {
        guard case .object = value else { throw .notificationNotObject }
        eventID = Self.string("event_id", in: value)
        roomID = Self.string("room_id", in: value)
        type = Self.string("type", in: value)
        sender = Self.string("sender", in: value)
        senderDisplayName = Self.string("sender_display_name", in: value)
        roomName = Self.string("room_name", in: value)
        roomAlias = Self.string("room_alias", in: value)
        userIsTarget = value["user_is_target"] == .bool(true)
        membership = Self.string("membership", in: value)
        prio = Self.string("prio", in: value) == "low" ? .low : .high
        if case .object(let members)? = value["content"] {
            content = MatrixPayloadFields.deduplicated(members)
        } else {
            content = nil
        }
        switch value["counts"] {
        case nil, .null?:
            unread = nil
            missedCalls = nil
        case .object?:
            unread = try Self.count("unread", in: value["counts"])
            missedCalls = try Self.count("missed_calls", in: value["counts"])
        default:
            throw .invalidField("counts is of invalid type")
        }
        // Sygnal checks the type before the emptiness, with a text for each (`sygnal/http.py`).
        guard case .array(let elements)? = value["devices"] else { throw .devicesNotList }
        guard !elements.isEmpty else { throw .noDevices }
        var devices: [MatrixDevice] = []
        devices.reserveCapacity(elements.count)
        for element in elements {
            devices.append(try MatrixDevice(element))
        }
        self.devices = devices
    }

    /// The string under `key`, or `nil` for an absent key or any other value.
    private static func string(_ key: String, in value: BodyValue) -> String? {
        if case .string(let text)? = value[key] { text } else { nil }
    }

    /// The integer under `key` of `counts`; absent or `null` is `nil`, anything but an integer is refused.
    private static func count(_ key: String, in counts: BodyValue?) throws(MatrixRequestError) -> Int? {
        switch counts?[key] {
        case nil, .null?: return nil
        case .number(let literal)?:
            guard let count = Int(literal) else { throw .invalidField("\(key) is of invalid type") }
            return count
        default: throw .invalidField("\(key) is of invalid type")
        }
    }

    /// Whether it is sent in the event-id-only form (compat.md §8.4): it has an `event_id` and no `type`.
    ///
    /// Herald follows Sygnal here, which decides by the notification's shape (`if n.event_id and not
    /// n.type` in `apnspushkin.py`) and never reads the device's `data.format`: Synapse implements a
    /// pusher's `"format": "event_id_only"` by sending only `event_id`, `room_id`, `counts`, `prio` and
    /// `devices`, so the shape says it, for every device of the request alike, whatever a device's
    /// `data` claims. As in Python, an empty `event_id` counts as none and an empty `type` as none.
    var isEventIDOnly: Bool {
        guard let eventID, !eventID.isEmpty else { return false }
        return type?.isEmpty ?? true
    }

    /// Equal when every field is; objects are compared member by member, in order.
    static func == (lhs: MatrixNotification, rhs: MatrixNotification) -> Bool {
        lhs.eventID == rhs.eventID && lhs.roomID == rhs.roomID && lhs.type == rhs.type && lhs.sender == rhs.sender
            && lhs.senderDisplayName == rhs.senderDisplayName && lhs.roomName == rhs.roomName && lhs.roomAlias == rhs.roomAlias
            && lhs.userIsTarget == rhs.userIsTarget && lhs.membership == rhs.membership && lhs.prio == rhs.prio
            && lhs.content.map { BodyValue.object($0) } == rhs.content.map { BodyValue.object($0) }
            && lhs.unread == rhs.unread && lhs.missedCalls == rhs.missedCalls && lhs.devices == rhs.devices
    }
}
