import HeraldCore

extension ConfigSection {
    /// Rejects any key the schema does not know, suggesting the nearest known key for a typo.
    func rejectUnknownKeys(schema: [String: KeyShape]) throws(ConfigurationError) {
        try rejectUnknownKeys(known: Set(schema.keys))
    }

    /// Rejects any key not in `known`, suggesting the nearest known key for a typo.
    func rejectUnknownKeys(known: Set<String>) throws(ConfigurationError) {
        for key in values.keys where !known.contains(key) {
            if let suggestion = KeySuggestion.nearest(to: key, among: known) {
                throw ConfigurationError(key: keyPath(key), "unknown key (did you mean \"\(suggestion)\"?)")
            }
            throw ConfigurationError(key: keyPath(key), "unknown key")
        }
    }

    /// A port number (1–65535), or `nil` when absent.
    func port(_ key: String) throws(ConfigurationError) -> Int? {
        try int(key, in: 1...65535)
    }

    /// A string that, when present, must not be empty.
    func nonEmptyString(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try string(key) else { return nil }
        guard !text.trimmingWhitespace().isEmpty else {
            throw ConfigurationError(key: keyPath(key), "must not be empty")
        }
        return text
    }

    /// The entries of a mapping whose keys the user chooses, each a mapping itself.
    ///
    /// Unlike ``section(_:)``, a null entry is an error: `admin:` with nothing under it is
    /// almost certainly a mistake, not a request for defaults.
    func entrySections(_ key: String) throws(ConfigurationError) -> [(name: String, section: ConfigSection)] {
        guard let container = try section(key) else { return [] }
        var sections: [(name: String, section: ConfigSection)] = []
        for (name, value) in container.values {
            guard case .map(let map) = value else {
                throw ConfigurationError(key: container.keyPath(name), "expected a mapping")
            }
            sections.append((name, ConfigSection(path: container.keyPath(name), values: map)))
        }
        return sections
    }
}
