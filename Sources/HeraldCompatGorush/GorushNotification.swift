import HeraldCore

/// One element of a gorush request's `notifications` array (compat.md §6.3), with every known
/// field checked for its JSON type as gorush's decoder does; unknown fields are ignored.
struct GorushNotification: Sendable {
    /// The JSON type a known field must have (`null` is accepted for every one, as Go's decoder does).
    enum FieldType {
        case string, integer, number, boolean, object, stringArray, any
    }

    /// Every field gorush's `PushNotification` decodes, with its type.
    static let fields: [String: FieldType] = [
        "notif_id": .string, "tokens": .stringArray, "platform": .integer, "message": .string, "title": .string,
        "image": .string, "priority": .string, "content_available": .boolean, "mutable_content": .boolean,
        "sound": .any, "data": .object, "retry": .integer, "topic": .string, "to": .string, "condition": .string,
        "collapse_key": .string, "delay_while_idle": .boolean, "time_to_live": .integer, "restricted_package_name": .string,
        "dry_run": .boolean, "notification": .object, "badge": .integer, "category": .string, "url-args": .stringArray,
        "alert": .object, "production": .boolean, "development": .boolean, "apns_id": .string, "collapse_id": .string,
        "push_type": .string, "expiration": .integer, "thread-id": .string, "name": .string, "volume": .number,
        "interruption_level": .string, "content-state": .object, "timestamp": .integer, "event": .string,
        "stale-date": .integer, "dismissal-date": .integer, "attributes-type": .string, "attributes": .object,
        "relevance-score": .number, "android": .object, "apns": .object, "webpush": .object, "fcm_options": .object,
        "huawei_notification": .object, "huawei_data": .string, "huawei_collapse_key": .integer, "huawei_ttl": .string, "bi_tag": .string,
        "fast_app_target": .integer,
    ]

    /// The known fields that were present and not null, in body order.
    let values: [String: BodyValue]

    /// Reads one notification; throws ``GorushRequestError/missingNotifications`` for a field of the wrong type.
    init(_ value: BodyValue) throws(GorushRequestError) {
        guard case .object(let members) = value else { throw .missingNotifications }
        var values: [String: BodyValue] = [:]
        for (key, value) in members {
            guard let type = Self.fields[key] else { continue }
            if case .null = value { continue }
            guard Self.value(value, hasType: type) else { throw .missingNotifications }
            values[key] = value
        }
        self.values = values
    }

    static func value(_ value: BodyValue, hasType type: FieldType) -> Bool {
        switch (type, value) {
        case (.any, _), (.string, .string), (.boolean, .bool), (.object, .object): return true
        case (.number, .number): return true
        case (.integer, .number(let literal)): return Int64(literal) != nil
        case (.stringArray, .array(let elements)):
            return elements.allSatisfy { if case .string = $0 { true } else if case .null = $0 { true } else { false } }
        default: return false
        }
    }

    // MARK: - Typed access

    func string(_ key: String) -> String? {
        if case .string(let text)? = values[key] { text } else { nil }
    }

    /// A string field that is present and non-empty.
    func nonEmpty(_ key: String) -> String? {
        string(key).flatMap { $0.isEmpty ? nil : $0 }
    }

    func integer(_ key: String) -> Int64? {
        if case .number(let literal)? = values[key] { Int64(literal) } else { nil }
    }

    func number(_ key: String) -> String? {
        if case .number(let literal)? = values[key] { literal } else { nil }
    }

    func bool(_ key: String) -> Bool {
        if case .bool(let flag)? = values[key] { flag } else { false }
    }

    func object(_ key: String) -> [(key: String, value: BodyValue)]? {
        if case .object(let members)? = values[key] { members } else { nil }
    }

    func strings(_ key: String) -> [String] {
        guard case .array(let elements)? = values[key] else { return [] }
        return elements.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    /// `platform`: 1 iOS, 2 Android, 3 Huawei.
    var platform: Int64? { integer("platform") }
    /// The device tokens.
    var tokens: [String] { strings("tokens") }
    /// The notification's own id, carried into `logs` and the feedback log.
    var notificationID: String? { nonEmpty("notif_id") }
}
