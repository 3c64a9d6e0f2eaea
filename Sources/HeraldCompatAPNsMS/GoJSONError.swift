/// Why the body's JSON could not be decoded into a notification, with the text Go's `encoding/json`
/// gave (compat.md §4.3 check 2): a syntax error, a known field of the wrong JSON type, a bad time.
///
/// Clients must not depend on these texts; they are Go's so that logs and clients written against
/// apns-ms read the same.
struct GoJSONError: Error, Sendable, Equatable {
    private enum Kind: Equatable {
        case unexpectedEOF
        case invalidCharacter(UInt8, String)
        case tooDeep
        case cannotUnmarshal(value: String, type: String)
        case time(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The body ends inside a value.
    static let unexpectedEOF = GoJSONError(.unexpectedEOF)
    /// A byte the grammar does not allow there; `context` is Go's (`looking for beginning of value`, ...).
    static func invalidCharacter(_ byte: UInt8, _ context: String) -> GoJSONError { GoJSONError(.invalidCharacter(byte, context)) }
    /// Nesting deeper than ``GoJSONReader/maximumDepth``.
    static let tooDeep = GoJSONError(.tooDeep)
    /// A known field whose JSON value does not fit its Go type: `value` is `string`, `number`,
    /// `number 1.5`, `bool`, `array` or `object`; `type` is the Go type (`int`, `apns.Payload`).
    static func cannotUnmarshal(_ value: String, into type: String) -> GoJSONError { GoJSONError(.cannotUnmarshal(value: value, type: type)) }
    /// `expires` is not an RFC 3339 string: `time.Time`'s own message.
    static func time(_ message: String) -> GoJSONError { GoJSONError(.time(message)) }

    /// Go's message.
    var message: String {
        switch kind {
        case .unexpectedEOF: "unexpected EOF"
        case .invalidCharacter(let byte, let context): "invalid character \(Self.quoteChar(byte)) \(context)"
        case .tooDeep: "exceeded max depth"
        case .cannotUnmarshal(let value, let type): "json: cannot unmarshal \(value) into Go value of type \(type)"
        case .time(let message): message
        }
    }

    /// A byte as Go's `quoteChar` writes it: `'x'`, `'\''`, `'"'`, `'\n'`, `'\x01'`, `'\u0085'`,
    /// or the Latin-1 character the byte is taken for (`'ï'` for a byte order mark's first byte).
    static func quoteChar(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "'"): return #"'\''"#
        case UInt8(ascii: "\""): return #"'"'"#
        case UInt8(ascii: "\\"): return #"'\\'"#
        case 0x07: return #"'\a'"#
        case 0x08: return #"'\b'"#
        case 0x0C: return #"'\f'"#
        case 0x0A: return #"'\n'"#
        case 0x0D: return #"'\r'"#
        case 0x09: return #"'\t'"#
        case 0x0B: return #"'\v'"#
        case 0x20...0x7E, 0xA1...0xAC, 0xAE...0xFF:
            return "'\(Character(Unicode.Scalar(byte)))'"
        case 0..<0x20, 0x7F:
            return #"'\x"# + hex(byte) + "'"
        default:
            return #"'\u00"# + hex(byte) + "'"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
