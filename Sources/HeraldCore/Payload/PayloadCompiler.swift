import OrderedCollections

/// Validates an event payload and compiles its templates into a ``PublishedEvent`` (§5.1–§5.4).
public enum PayloadCompiler {
    /// The APNs push types the `pushType` key accepts.
    public static let pushTypes: Set<String> = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm",
        "liveactivity", "location", "pushtotalk", "widgets", "controls",
    ]

    /// The most bytes a `collapseKey` may have (APNs' `apns-collapse-id` limit).
    public static let maximumCollapseKeyBytes = 64

    /// Validates `body` and compiles it for a publish to `event`.
    ///
    /// Keys are checked in body order and the first failure is thrown; for each key:
    /// empty key, then a value that is not a string, then an unknown key or a bad
    /// extension value. Then `Empty payload` when title, message and data have no
    /// key at all, then the templates: every title first, then every message, each
    /// in the order its language first appeared. A body that is not an object is
    /// read as `{}`.
    ///
    /// A later key wins over an earlier one for the same entry (`title` and
    /// `title.default`), keeping the earlier one's position in the language map.
    /// An empty `collapseKey` is read as no collapse key.
    public static func compile(_ body: BodyValue, event: String) throws(PayloadError) -> PublishedEvent {
        var titles: OrderedDictionary<String, String> = [:]
        var messages: OrderedDictionary<String, String> = [:]
        var notification = PublishedEvent(event: event)

        for (key, value) in body.objectMembers ?? [] {
            guard !key.isEmpty else { throw .emptyField }
            if key == "liveActivity" {
                notification.liveActivity = try LiveActivity(payload: value)
                continue
            }
            guard case .string(let text) = value else { throw .invalidValue(key) }

            if let dot = key.utf8.firstIndex(of: UInt8(ascii: ".")) {
                let name = String(key[key.utf8.index(after: dot)...])
                guard !name.isEmpty else { throw .invalidField(key) }
                switch key[..<dot] {
                case "title": titles[name] = text
                case "msg": messages[name] = text
                case "data": notification.data[name] = text
                case "var": notification.vars[name] = text
                default: throw .invalidField(key)
                }
                continue
            }

            switch key {
            case "title": titles["default"] = text
            case "msg": messages["default"] = text
            case "sound": notification.sound = text
            case "badge": notification.badge = text
            case "incrementBadge": notification.incrementBadge = text != "false"
            case "category": notification.category = text
            case "contentAvailable": notification.contentAvailable = text != "false"
            case "ttl":
                guard let ttl = decimalInteger(text, allowsNegative: false).flatMap({ Int(exactly: $0) }) else { throw .invalidValue(key) }
                notification.ttl = ttl
            case "expiration":
                guard let expiration = decimalInteger(text, allowsNegative: true) else { throw .invalidValue(key) }
                notification.expiration = expiration
            case "priority":
                guard let priority = NotificationPriority(rawValue: text) else { throw .invalidValue(key) }
                notification.priority = priority
            case "collapseKey":
                guard text.utf8.count <= maximumCollapseKeyBytes else { throw .invalidValue(key) }
                notification.collapseKey = text.isEmpty ? nil : text
            case "pushType":
                guard pushTypes.contains(text) else { throw .invalidValue(key) }
                notification.pushType = text
            case "apnsChannel":
                guard (1...255).contains(text.utf8.count) else { throw .invalidValue(key) }
                notification.apnsChannel = text
            case "apnsProvider":
                guard !text.isEmpty else { throw .invalidValue(key) }
                notification.apnsProvider = text
            default:
                throw .invalidField(key)
            }
        }

        if notification.apnsProvider != nil, notification.apnsChannel == nil { throw .invalidValue("apnsProvider") }
        // A Live Activity update is a payload of its own: its content state is what the app shows.
        guard !titles.isEmpty || !messages.isEmpty || !notification.data.isEmpty || notification.liveActivity != nil else {
            throw .emptyPayload
        }

        notification.title = try render(titles, event: event, data: notification.data, vars: notification.vars)
        notification.message = try render(messages, event: event, data: notification.data, vars: notification.vars)
        return notification
    }

    private static func render(
        _ sources: OrderedDictionary<String, String>,
        event: String,
        data: OrderedDictionary<String, String>,
        vars: OrderedDictionary<String, String>
    ) throws(PayloadError) -> LocalizedText {
        var rendered = sources
        for index in sources.values.indices {
            rendered.values[index] = try Template(sources.values[index]).render(event: event, data: data, vars: vars)
        }
        return LocalizedText(rendered)
    }

    /// `^-?[0-9]+$` as an `Int64` (`-` only when allowed); `nil` when it does not fit.
    private static func decimalInteger(_ text: String, allowsNegative: Bool) -> Int64? {
        var digits = Substring(text)
        if allowsNegative, digits.utf8.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        // Int64(String) also accepts a leading "+", which the check above has already ruled out.
        return Int64(text)
    }
}
