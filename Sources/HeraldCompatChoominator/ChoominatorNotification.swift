import HeraldCore

/// A notification datagram (compat.md §5.3): groups, an APNs payload and its delivery options.
struct ChoominatorNotification: Sendable, Equatable {
    /// The union of `groups` and `group`, in order of first mention, without repeats. Names that
    /// are not valid event names are left out: such a group has no subscribers.
    var groups: [EventName]
    /// Every group name given, valid or not (for logs).
    var requestedGroups: [String]
    /// `payload`, re-serialized as compact JSON with its keys in their order.
    var body: String
    /// `type`.
    var type: ChoominatorNotificationType
    /// `expiration` (Unix seconds; 0: deliver now or never).
    var expiration: Int64
    /// `key`, the collapse id.
    var collapseID: String?

    /// The keys a notification may have.
    static let keys: Set<String> = ["groups", "group", "payload", "type", "expiration", "key"]
    /// APNs's largest payload (compat.md §1.2).
    static let maxPayloadBytes = 4096
    /// APNs's longest `apns-collapse-id`.
    static let maxCollapseIDBytes = 64

    /// Parses and checks a datagram.
    init(parsing bytes: some Collection<UInt8>) throws(ChoominatorRejection) {
        let object = try ChoominatorObject(parsing: bytes, allowed: Self.keys)
        var names: [String] = []
        if let list = object["groups"] {
            guard case .array(let elements) = list else { throw .invalidValue("groups") }
            for element in elements {
                guard case .string(let name) = element else { throw .invalidValue("groups") }
                names.append(name)
            }
        }
        if let single = try object.string("group") { names.append(single) }
        guard object["groups"] != nil || object["group"] != nil else { throw .missing("groups") }
        var seen: Set<String> = []
        requestedGroups = names.filter { seen.insert($0).inserted }
        groups = requestedGroups.compactMap(EventName.init)

        guard let payload = object["payload"] else { throw .missing("payload") }
        guard case .object = payload else { throw .invalidValue("payload") }
        body = payload.jsonText
        guard body.utf8.count <= Self.maxPayloadBytes else { throw .payloadTooLarge(body.utf8.count) }

        if let type = try object.string("type") {
            guard let known = ChoominatorNotificationType(rawValue: type) else { throw .invalidValue("type") }
            self.type = known
        } else {
            self.type = .background
        }

        if let value = object["expiration"] {
            // An integer literal: no fraction, no exponent, and no negative (APNs takes a Unix time).
            guard case .number(let literal) = value, let seconds = Int64(literal), seconds >= 0 else { throw .invalidValue("expiration") }
            expiration = seconds
        } else {
            expiration = 0
        }

        if let key = try object.string("key") {
            guard key.utf8.count <= Self.maxCollapseIDBytes else { throw .keyTooLong }
            collapseID = key.isEmpty ? nil : key
        } else {
            collapseID = nil
        }
    }

    /// The payload as Herald sends it: body and APNs headers (the topic is the provider's).
    var prepared: PreparedPayload {
        var headers = [
            "apns-push-type": type.pushType,
            "apns-priority": type.priority,
            "apns-expiration": String(expiration),
        ]
        if let collapseID { headers["apns-collapse-id"] = collapseID }
        // The label names what was published to, for dead-letter filters and logs.
        return PreparedPayload(body: body, headers: headers, label: requestedGroups.joined(separator: ","))
    }
}
