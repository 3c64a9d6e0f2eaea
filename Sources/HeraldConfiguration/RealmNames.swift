import HeraldCore

/// Reading realm names as written in the configuration.
enum RealmNames {
    /// The realm names, for messages: `register, publish, listen, admin`.
    static let list = Realm.allCases.map(\.rawValue).joined(separator: ", ")

    /// The realm called `name` (surrounding spaces ignored, as in comma-separated environment values).
    static func realm(_ name: String, key: String) throws(ConfigurationError) -> Realm {
        guard let realm = Realm(rawValue: name.trimmingWhitespace()) else {
            throw ConfigurationError(key: key, "unknown realm \"\(name)\" (expected one of \(list))")
        }
        return realm
    }
}
