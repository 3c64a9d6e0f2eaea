/// The optional, client-supplied fields of a subscriber, stored as text.
///
/// Requests may send strings, numbers or booleans; they are kept as their text
/// (`5` → `"5"`, `true` → `"true"`) and typed again only when read back (§3.1).
public struct SubscriberFields: Sendable, Equatable, Hashable {
    /// Language code used to pick translations.
    public var lang: String?
    /// The app's current badge, maintained by the badge logic.
    public var badge: String?
    /// Client OS version; MPNS uses it.
    public var version: String?
    /// Stored and returned; not used for delivery.
    public var category: String?
    /// Stored and returned; not used for delivery.
    public var contentAvailable: String?

    /// The field names in the order Herald writes them.
    public static let names = ["lang", "badge", "version", "category", "contentAvailable"]

    /// Creates a set of fields.
    public init(lang: String? = nil, badge: String? = nil, version: String? = nil, category: String? = nil, contentAvailable: String? = nil) {
        self.lang = lang
        self.badge = badge
        self.version = version
        self.category = category
        self.contentAvailable = contentAvailable
    }

    /// The value of the field called `name`, if it is one of ``names``.
    public subscript(name: String) -> String? {
        get {
            switch name {
            case "lang": lang
            case "badge": badge
            case "version": version
            case "category": category
            case "contentAvailable": contentAvailable
            default: nil
            }
        }
        set {
            switch name {
            case "lang": lang = newValue
            case "badge": badge = newValue
            case "version": version = newValue
            case "category": category = newValue
            case "contentAvailable": contentAvailable = newValue
            default: break
            }
        }
    }

    /// These fields with every field that `update` sets overwritten.
    public func merging(_ update: SubscriberFields) -> SubscriberFields {
        var merged = self
        for name in Self.names where update[name] != nil {
            merged[name] = update[name]
        }
        return merged
    }

    /// Whether no field is set.
    public var isEmpty: Bool { Self.names.allSatisfy { self[$0] == nil } }
}

/// A registered device or endpoint: one `(proto, token)` pair.
public struct Subscriber: Sendable, Equatable {
    /// The subscriber's id.
    public var id: SubscriberID
    /// The provider name given at registration.
    public var proto: String
    /// The normalized token (device token, URL, or PushSubscription JSON).
    public var token: String
    /// The optional fields.
    public var fields: SubscriberFields
    /// Unix seconds of the first registration.
    public var created: Int64
    /// Unix seconds of the last registration or update.
    public var updated: Int64
    /// Consecutive subscriber failures (not returned by the pushd API; the dashboard's admin search shows it).
    public var failures: Int

    /// Creates a subscriber record.
    public init(id: SubscriberID, proto: String, token: String, fields: SubscriberFields = .init(), created: Int64, updated: Int64, failures: Int = 0) {
        self.id = id
        self.proto = proto
        self.token = token
        self.fields = fields
        self.created = created
        self.updated = updated
        self.failures = failures
    }
}

/// What a registration stores: the normalized token, its identity and the fields.
public struct SubscriberRegistration: Sendable, Equatable {
    /// The provider name.
    public var proto: String
    /// The normalized token to store.
    public var token: String
    /// What makes two registrations the same subscriber (the token, or a Web Push endpoint).
    public var identity: String
    /// Fields given with the registration; unset ones keep their stored value.
    public var fields: SubscriberFields

    /// Creates a registration.
    public init(proto: String, token: String, identity: String? = nil, fields: SubscriberFields = .init()) {
        self.proto = proto
        self.token = token
        self.identity = identity ?? token
        self.fields = fields
    }
}
