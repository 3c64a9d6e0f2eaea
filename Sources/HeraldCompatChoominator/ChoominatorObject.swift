import HeraldCore

/// The root object of a datagram, read strictly: every key must be known and given once.
struct ChoominatorObject: Sendable {
    private let members: [String: BodyValue]

    /// Parses `bytes` as one JSON object whose keys are all in `allowed`.
    init(parsing bytes: some Collection<UInt8>, allowed: Set<String>) throws(ChoominatorRejection) {
        let root: BodyValue
        do {
            root = try JSONBodyParser.parse(bytes)
        } catch {
            throw .malformedJSON
        }
        guard case .object(let pairs) = root else { throw .notAnObject }
        var members: [String: BodyValue] = [:]
        for (key, value) in pairs {
            guard allowed.contains(key) else { throw .unknownKey(key) }
            guard members.updateValue(value, forKey: key) == nil else { throw .duplicateKey(key) }
        }
        self.members = members
    }

    /// The value of `key`, if given.
    subscript(key: String) -> BodyValue? { members[key] }

    /// A string value, if given; any other type rejects.
    func string(_ key: String) throws(ChoominatorRejection) -> String? {
        guard let value = members[key] else { return nil }
        guard case .string(let text) = value else { throw .invalidValue(key) }
        return text
    }

    /// A string value that must be given and non-empty.
    func requiredString(_ key: String) throws(ChoominatorRejection) -> String {
        guard let text = try string(key) else { throw .missing(key) }
        guard !text.isEmpty else { throw .invalidValue(key) }
        return text
    }
}
