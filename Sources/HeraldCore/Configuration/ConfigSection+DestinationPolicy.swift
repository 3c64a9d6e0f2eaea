extension ConfigSection {
    /// `base` with this section's `deny` and `allow` lists, each one present replacing the list of the same name
    /// (`deny: []` denies nothing).
    ///
    /// - Throws: ``ConfigurationError`` naming the entry that is no address or CIDR block.
    public func destinationPolicy(replacing base: DestinationPolicy) throws(ConfigurationError) -> DestinationPolicy {
        var policy = base
        if let deny = try addressBlocks("deny") { policy.deny = deny }
        if let allow = try addressBlocks("allow") { policy.allow = allow }
        return policy
    }

    private func addressBlocks(_ key: String) throws(ConfigurationError) -> [AddressMatcher]? {
        guard let entries = try stringList(key) else { return nil }
        var blocks: [AddressMatcher] = []
        for entry in entries {
            guard let block = AddressMatcher(entry.trimmingWhitespace()) else {
                throw ConfigurationError(key: keyPath(key), "\"\(entry)\" is not an IPv4 or IPv6 address or CIDR block")
            }
            blocks.append(block)
        }
        return blocks
    }
}
