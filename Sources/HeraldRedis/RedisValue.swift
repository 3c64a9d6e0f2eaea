/// One Redis reply.
public enum RedisValue: Sendable, Hashable {
    /// A bulk string (binary-safe).
    case bulk([UInt8])
    /// A status reply (`OK`, `QUEUED`).
    case status(String)
    /// An integer reply.
    case integer(Int64)
    /// An array reply (`HGETALL`, `SCAN`, `BRPOP`, ...).
    case array([RedisValue])
    /// The null reply (a missing key, a `BRPOP` that timed out).
    case null

    /// The text of a bulk string or a status, decoded as UTF-8 (invalid bytes repaired); `nil` otherwise.
    public var text: String? {
        switch self {
        case .bulk(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        case .integer(let value): String(value)
        default: nil
        }
    }

    /// The elements of an array; `nil` otherwise.
    public var elements: [RedisValue]? {
        if case .array(let values) = self { values } else { nil }
    }

    /// An integer reply, or a bulk string holding a decimal integer.
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .bulk: text.flatMap { Int64($0) }
        default: nil
        }
    }

    /// A flat array of alternating field and value (`HGETALL`) as a dictionary; `nil` when it is no such array.
    public var fieldValues: [String: String]? {
        guard let elements, elements.count % 2 == 0 else { return nil }
        var result: [String: String] = [:]
        var index = 0
        while index < elements.count {
            guard let field = elements[index].text, let value = elements[index + 1].text else { return nil }
            result[field] = value
            index += 2
        }
        return result
    }
}
