/// A JSON value of a request body, as the FCM simulator validates it.
///
/// Decoded with `JSONDecoder`; trying a string first keeps the common case (data maps of strings) cheap.
indirect enum FCMJSONValue: Decodable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([FCMJSONValue])
    case object([String: FCMJSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let members = try? container.decode([String: FCMJSONValue].self) {
            self = .object(members)
        } else if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .array(try container.decode([FCMJSONValue].self))
        }
    }

    /// The members of an object, or `nil`.
    var object: [String: FCMJSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The text of a string, or `nil`.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// How Google's error messages show a value that has the wrong type (`12`, `true`, `[...]`).
    var errorText: String {
        switch self {
        case .string(let text): return FCMJSONText.quoted(text)
        case .number(let number):
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array: return "[...]"
        case .object: return "{...}"
        }
    }
}
