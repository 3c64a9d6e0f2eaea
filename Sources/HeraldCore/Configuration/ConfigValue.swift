import Collections

/// A configuration value as read from YAML or an environment variable.
///
/// Scalars stay text until a reader asks for a type, so `HERALD_SERVER_HTTP_PORT=80`
/// and `port: 80` are read the same way.
public indirect enum ConfigValue: Sendable, Equatable {
    /// A scalar, as text.
    case scalar(String)
    /// A sequence.
    case list([ConfigValue])
    /// A mapping, keys in file order.
    case map(OrderedDictionary<String, ConfigValue>)
    /// An explicit null (`~`, `null`, or an empty value).
    case null
}

/// A configuration problem, reported as one line naming the key.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted key path (`server.http.port`), or the flag.
    public var key: String
    /// What is wrong with it.
    public var problem: String

    /// Creates an error about `key`.
    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String { key.isEmpty ? problem : "\(key): \(problem)" }
}

/// Typed reading of a configuration mapping, with errors that name the full key.
public struct ConfigSection: Sendable, Equatable {
    /// The dotted path of this section (`providers.apns`).
    public let path: String
    /// The section's keys and values.
    public let values: OrderedDictionary<String, ConfigValue>

    /// Creates a section at `path`.
    public init(path: String, values: OrderedDictionary<String, ConfigValue>) {
        self.path = path
        self.values = values
    }

    /// The full key path for `key`.
    public func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether `key` is present with a non-null value.
    public func contains(_ key: String) -> Bool {
        if let value = values[key], value != .null { return true }
        return false
    }

    /// A string, or `nil` when absent.
    public func string(_ key: String) throws(ConfigurationError) -> String? {
        switch values[key] {
        case nil, .null: return nil
        case .scalar(let text): return text
        default: throw ConfigurationError(key: keyPath(key), "expected a string")
        }
    }

    /// A string that must be present and non-empty.
    public func requiredString(_ key: String) throws(ConfigurationError) -> String {
        guard let text = try string(key), !text.isEmpty else {
            throw ConfigurationError(key: keyPath(key), "is required")
        }
        return text
    }

    /// An integer, or `nil` when absent.
    public func int(_ key: String, in range: ClosedRange<Int>? = nil) throws(ConfigurationError) -> Int? {
        guard let text = try string(key) else { return nil }
        guard let value = Int(text.trimmingWhitespace()) else {
            throw ConfigurationError(key: keyPath(key), "expected an integer, got \"\(text)\"")
        }
        if let range, !range.contains(value) {
            throw ConfigurationError(key: keyPath(key), "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    /// A number of seconds (integer or decimal), or `nil` when absent.
    public func seconds(_ key: String) throws(ConfigurationError) -> Double? {
        guard let text = try string(key) else { return nil }
        guard let value = Double(text.trimmingWhitespace()), value >= 0, value.isFinite else {
            throw ConfigurationError(key: keyPath(key), "expected a non-negative number of seconds, got \"\(text)\"")
        }
        return value
    }

    /// A boolean (`true/false/yes/no/on/off/1/0`), or `nil` when absent.
    public func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let text = try string(key) else { return nil }
        switch text.trimmingWhitespace().lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw ConfigurationError(key: keyPath(key), "expected true or false, got \"\(text)\"")
        }
    }

    /// A list of strings (a single scalar counts as a one-element list), or `nil` when absent.
    public func stringList(_ key: String) throws(ConfigurationError) -> [String]? {
        switch values[key] {
        case nil, .null: return nil
        case .scalar(let text): return [text]
        case .list(let items):
            var strings: [String] = []
            for item in items {
                guard case .scalar(let text) = item else {
                    throw ConfigurationError(key: keyPath(key), "expected a list of strings")
                }
                strings.append(text)
            }
            return strings
        case .map: throw ConfigurationError(key: keyPath(key), "expected a list of strings")
        }
    }

    /// A nested section, or `nil` when absent.
    public func section(_ key: String) throws(ConfigurationError) -> ConfigSection? {
        switch values[key] {
        case nil, .null: return nil
        case .map(let map): return ConfigSection(path: keyPath(key), values: map)
        default: throw ConfigurationError(key: keyPath(key), "expected a mapping")
        }
    }

    /// Rejects any key not in `known` (a typo must not be silently ignored).
    public func rejectUnknownKeys(_ known: Set<String>) throws(ConfigurationError) {
        for key in values.keys where !known.contains(key) {
            throw ConfigurationError(key: keyPath(key), "unknown key")
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    package func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) })!
        return String(self[start...end])
    }
}
