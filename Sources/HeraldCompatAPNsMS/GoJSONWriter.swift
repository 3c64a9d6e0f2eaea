import HeraldCore

/// Writes JSON as Go's `encoding/json` marshals it, which apns-ms's clients compare byte for byte
/// (compat.md §4.6): HTML-safe string escaping, map keys sorted in byte order, and numbers decoded
/// into `interface{}` (float64) written in their shortest round-trip form.
///
/// Commas are placed automatically, as ``JSONWriter`` does; the fixed shapes that use it nest evidently.
struct GoJSONWriter {
    /// The UTF-8 text written so far.
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    mutating func integer(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A value decoded into Go's `interface{}`: objects become maps (keys sorted, the last of
    /// duplicate keys kept), numbers float64.
    mutating func interfaceValue(_ value: BodyValue) {
        switch value {
        case .null:
            raw("null")
        case .bool(let flag):
            raw(flag ? "true" : "false")
        case .string(let text):
            string(text)
        case .number(let literal):
            raw(Self.float64(literal))
        case .array(let elements):
            beginArray()
            for element in elements { interfaceValue(element) }
            endArray()
        case .object(let members):
            beginObject()
            for (key, value) in Self.sortedMap(members) {
                self.key(key)
                interfaceValue(value)
            }
            endObject()
        }
    }

    mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// An object's members as a Go map marshals them: one per key (the last), in byte order.
    static func sortedMap(_ members: [(key: String, value: BodyValue)]) -> [(key: String, value: BodyValue)] {
        var latest: [String: BodyValue] = [:]
        for (key, value) in members { latest[key] = value }
        return latest.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map { ($0.key, $0.value) }
    }

    /// A JSON number literal as Go writes the float64 it decodes to: `1.0` → `1`, `1e21` → `1e+21`,
    /// `0.0000001` → `1e-7`, integers past 2^53 rounded.
    static func float64(_ literal: String) -> String {
        guard let value = Double(literal), value.isFinite else { return literal }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        // Swift's description has the shortest digits that read back as the same double, as Go's
        // strconv does; only the layout differs.
        var text = Substring(value.magnitude.description)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let integerPart = parts[0]
        var digits = Array(integerPart + (parts.count > 1 ? parts[1] : ""))
        var point = integerPart.count + exponent  // value = 0.<digits> × 10^point
        while digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        let sign = value.sign == .minus ? "-" : ""
        let magnitude = value.magnitude
        if magnitude >= 1e-6 && magnitude < 1e21 {
            if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + String(digits) }
            if point >= digits.count { return sign + String(digits) + String(repeating: "0", count: point - digits.count) }
            return sign + String(digits[..<point]) + "." + String(digits[point...])
        }
        let mantissa = digits.count > 1 ? "\(digits[0]).\(String(digits[1...]))" : String(digits[0])
        let power = point - 1
        // Go writes at least two exponent digits and then shortens `e-07` to `e-7`, not `e+07`.
        let powerDigits = String(abs(power))
        let written = power < 0 ? powerDigits : (powerDigits.count < 2 ? "0" + powerDigits : powerDigits)
        return sign + mantissa + "e" + (power < 0 ? "-" : "+") + written
    }

    @inline(__always)
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Go's HTML-safe string: `"` `\` and control characters escaped (`\b \f \n \r \t` short),
    /// `<` `>` `&` as `\u003c` `\u003e` `\u0026`, U+2028 and U+2029 as escapes.
    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x3C, 0x3E, 0x26:
                let byte = UInt8(scalar.value)
                bytes.append(contentsOf: Array(#"\u00"#.utf8))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            case 0x2028: bytes.append(contentsOf: Array(#"\u2028"#.utf8))
            case 0x2029: bytes.append(contentsOf: Array(#"\u2029"#.utf8))
            default: bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
