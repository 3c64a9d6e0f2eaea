/// A decoded request body value that keeps the order of object keys.
///
/// Both JSON bodies and `application/x-www-form-urlencoded` bodies decode to this
/// tree, so the payload rules ("checked in body order", "the later key wins")
/// apply the same way to both. Numbers keep their literal text, so a JSON `5`
/// is stored as `"5"` exactly as rs/pushd stored it.
public indirect enum BodyValue: Sendable, Equatable {
    /// A string.
    case string(String)
    /// A JSON number, as its literal text (`5`, `7.5`, `-1e3`).
    case number(String)
    /// A JSON boolean.
    case bool(Bool)
    /// JSON `null`.
    case null
    /// An object, keys in body order (duplicates kept as they came).
    case object([(key: String, value: BodyValue)])
    /// An array.
    case array([BodyValue])

    /// The members of an object, or `nil` for any other value.
    public var objectMembers: [(key: String, value: BodyValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The last value stored under `key` in an object (the later key wins).
    public subscript(key: String) -> BodyValue? {
        objectMembers?.last(where: { $0.key == key })?.value
    }

    /// The text of a scalar field value as rs/pushd stored it (`5` → `"5"`, `true` → `"true"`).
    ///
    /// `.null` is `nil` ("not given"); objects and arrays are not scalars, so also `nil`:
    /// callers distinguish them with ``isContainer``.
    public var scalarText: String? {
        switch self {
        case .string(let text): text
        case .number(let literal): literal
        case .bool(let value): value ? "true" : "false"
        case .null, .object, .array: nil
        }
    }

    /// Whether this is an object or an array.
    public var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }

    public static func == (lhs: BodyValue, rhs: BodyValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}
