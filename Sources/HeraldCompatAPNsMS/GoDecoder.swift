import HeraldCore

/// Decodes parsed JSON into apns-ms's fields with the rules of Go's `json.Unmarshal` into structs
/// (compat.md §4.2), which its clients' requests were shaped against:
///
/// - an object key matches a field exactly, else case-insensitively; unknown keys are ignored and
///   a repeated key is decoded again over the first (so objects merge, scalars are replaced);
/// - `null` leaves a string or number field as it is, and empties a pointer, map or interface;
/// - a value of the wrong JSON type is skipped and remembered: the first such mismatch is the
///   error once the whole body has been decoded (``savedError``).
struct GoDecoder {
    /// The first type mismatch met, which Go reports after decoding everything else.
    private(set) var savedError: GoJSONError?

    mutating func save(_ error: GoJSONError) {
        if savedError == nil { savedError = error }
    }

    /// The field of `names` that `key` decodes into: the exact name, else the one equal under
    /// case folding.
    static func field(_ key: String, in names: [String]) -> String? {
        if names.contains(key) { return key }
        let folded = fold(key)
        return names.first { fold($0) == folded }
    }

    /// Go's case folding of field names, close enough: lower case, with `ſ` (U+017F) as `s` (the
    /// Kelvin sign lower-cases to `k` already).
    private static func fold(_ text: String) -> String {
        String(String.UnicodeScalarView(text.lowercased().unicodeScalars.map { $0 == "\u{017F}" ? "s" : $0 }))
    }

    /// The JSON type as Go names it in a mismatch.
    static func kind(_ value: BodyValue) -> String {
        switch value {
        case .string: "string"
        case .number: "number"
        case .bool: "bool"
        case .null: "null"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A Go `string` field.
    mutating func string(_ value: BodyValue, into target: inout String) {
        switch value {
        case .null: break
        case .string(let text): target = text
        default: save(.cannotUnmarshal(Self.kind(value), into: "string"))
        }
    }

    /// A Go `int` field (64 bits): an integer literal only (`1.0` and `1e2` are refused, as Go refuses them).
    mutating func int(_ value: BodyValue, into target: inout Int64) {
        var pointer: Int64? = target
        int(value, into: &pointer)
        if let pointer { target = pointer }
    }

    /// A Go `*int` field: `null` empties it.
    mutating func int(_ value: BodyValue, into target: inout Int64?) {
        switch value {
        case .null: target = nil
        case .number(let literal):
            if let integer = Int64(literal) { target = integer } else { save(.cannotUnmarshal("number \(literal)", into: "int")) }
        default: save(.cannotUnmarshal(Self.kind(value), into: "int"))
        }
    }

    /// A Go `uint8` field: 0–255, no sign.
    mutating func uint8(_ value: BodyValue, into target: inout UInt8) {
        switch value {
        case .null: break
        case .number(let literal):
            if !literal.hasPrefix("-"), let integer = UInt8(literal) {
                target = integer
            } else {
                save(.cannotUnmarshal("number \(literal)", into: "uint8"))
            }
        default: save(.cannotUnmarshal(Self.kind(value), into: "uint8"))
        }
    }

    /// The members of an object decoded into a Go struct of `type`; `nil` for `null` and for a
    /// mismatch (remembered).
    mutating func members(_ value: BodyValue, type: String) -> [(key: String, value: BodyValue)]? {
        switch value {
        case .null: return nil
        case .object(let members): return members
        default:
            save(.cannotUnmarshal(Self.kind(value), into: type))
            return nil
        }
    }

    /// A value decoded into Go's `interface{}`: anything, but a number must fit a float64.
    mutating func checkInterface(_ value: BodyValue) {
        switch value {
        case .number(let literal):
            if !(Double(literal)?.isFinite ?? false) { save(.cannotUnmarshal("number \(literal)", into: "float64")) }
        case .array(let elements):
            for element in elements { checkInterface(element) }
        case .object(let members):
            for member in members { checkInterface(member.value) }
        default:
            break
        }
    }
}
