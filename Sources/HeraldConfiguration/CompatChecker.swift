import HeraldCore

/// The checks common to every front-end's section.
struct CompatChecker {
    /// The configured provider names.
    let providers: Set<String>

    /// Checks keys and value shapes (scalar, list, mapping) against the schema, recursively.
    func shape(_ section: ConfigSection, _ schema: [String: KeyShape]) throws(ConfigurationError) {
        try section.rejectUnknownKeys(schema: schema)
        // File order, so the first problem reported is the first in the file.
        for key in section.values.keys {
            if let shape = schema[key] { try value(section, key, shape) }
        }
    }

    /// Checks one key's value against its shape.
    private func value(_ section: ConfigSection, _ key: String, _ shape: KeyShape) throws(ConfigurationError) {
        switch shape {
        case .scalar:
            _ = try section.string(key)
        case .list:
            _ = try section.stringList(key)
        case .section(let fields):
            if let nested = try section.section(key) { try self.shape(nested, fields) }
        case .entries(let inner):
            guard let nested = try section.section(key) else { return }
            for name in nested.values.keys { try value(nested, name, inner) }
        case .providers, .anything:
            break
        }
    }

    /// Checks that `key`, when present, names a configured provider.
    ///
    /// `secretKey`: the key is itself a secret (suj-pusher's `api_keys` are GCM API keys), so the
    /// error names the section and the provider, never the key.
    func provider(_ section: ConfigSection, _ key: String, secretKey: Bool = false) throws(ConfigurationError) {
        guard let name = try section.string(key) else { return }
        guard providers.contains(name) else {
            let known = providers.isEmpty ? "no providers are configured" : "configured: " + providers.sorted().joined(separator: ", ")
            throw ConfigurationError(key: secretKey ? section.path : section.keyPath(key), "no provider named \"\(name)\" (\(known))")
        }
    }
}
