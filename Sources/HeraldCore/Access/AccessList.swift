/// A realm's source-address allow-list (`server.acl.<realm>`, §2.2–§2.3).
public struct AccessList: Sendable {
    /// The entries, in configuration order.
    public let matchers: [AddressMatcher]

    /// Parses the entries configured under `key` (`server.acl.publish`).
    ///
    /// Surrounding whitespace is ignored; any entry that does not parse is a
    /// configuration error naming `key` and the entry, so that a typo stops
    /// start-up instead of silently locking clients out (or in).
    public init(_ entries: [String], key: String) throws(ConfigurationError) {
        var matchers: [AddressMatcher] = []
        matchers.reserveCapacity(entries.count)
        for entry in entries {
            guard let matcher = AddressMatcher(entry.trimmingWhitespace()) else {
                throw ConfigurationError(key: key, "invalid address or CIDR block \"\(entry)\"")
            }
            matchers.append(matcher)
        }
        self.matchers = matchers
    }

    /// Whether `address` is inside one of the entries; an empty list allows nobody.
    public func allows(_ address: IPAddress) -> Bool {
        matchers.contains { $0.matches(address) }
    }
}
