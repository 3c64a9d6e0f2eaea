import OrderedCollections

/// Builds compact JSON text for Herald's fixed-shape answers and messages.
///
/// The output matches JavaScript's `JSON.stringify`, which is what rs/pushd's
/// clients saw: no spaces, `"` `\` and control characters escaped (`\n`-style
/// short forms where JSON has them, `\u00xx` otherwise), and nothing else — `/`
/// and non-ASCII text are written as they are. Keys come out in the order they
/// are written, which `JSONEncoder` does not guarantee.
///
/// Commas are inserted automatically; the writer does not check that calls nest
/// properly, which the fixed shapes that use it make evident.
///
/// ```swift
/// var json = JSONWriter()
/// json.beginObject()
/// json.key("event"); json.string("sport")
/// json.key("data"); json.object(["x": "1"])
/// json.endObject()
/// json.text  // {"event":"sport","data":{"x":"1"}}
/// ```
public struct JSONWriter: Sendable {
    /// The UTF-8 text written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value or key must be preceded by a comma.
    private var needsComma = false

    /// Creates an empty writer with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Starts an object (`{`).
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Ends the current object (`}`).
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array (`[`).
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array (`]`).
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key and its colon; the value follows with the next call.
    public mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func number(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// Writes `null`.
    public mutating func null() {
        raw("null")
    }

    /// Writes `json` unchanged as one value; it must already be valid JSON (a number literal, a nested document).
    public mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// Writes stored text with the §3.1 typing rule: a number when ``isSafeCanonicalInteger(_:)``, else a string.
    public mutating func storedText(_ text: String) {
        if Self.isSafeCanonicalInteger(text) {
            raw(text)
        } else {
            string(text)
        }
    }

    /// Writes a string map as an object, keys in order (`{}` when empty).
    public mutating func object(_ members: OrderedDictionary<String, String>) {
        beginObject()
        for (key, value) in members {
            self.key(key)
            string(value)
        }
        endObject()
    }

    /// Writes a body value; numbers keep their literal text, objects their key order and duplicates.
    public mutating func value(_ value: BodyValue) {
        switch value {
        case .string(let text): string(text)
        case .number(let literal): raw(literal)
        case .bool(let flag): bool(flag)
        case .null: null()
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return writer.text
    }

    /// Whether `text` matches `^(0|-?[1-9][0-9]*)$` with a magnitude of at most 2^53 − 1,
    /// so that JavaScript reads it back as the same integer (§3.1).
    public static func isSafeCanonicalInteger(_ text: String) -> Bool {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard let first = digits.first, digits.count <= 16 else { return false }
        if first == UInt8(ascii: "0") { return digits.count == 1 && digits.count == text.utf8.count }
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        if digits.count < 16 { return true }
        // 16 digits: compare against 9007199254740991 digit by digit (same length, so lexicographic works).
        return digits.lexicographicallyPrecedes("9007199254740992".utf8)
    }

    /// Lower-case, as `JSON.stringify` writes `\u001f`.
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    @inline(__always)
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = text.utf8
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                utf8.formIndex(after: &index)
                continue
            }
            bytes.append(contentsOf: utf8[runStart..<index])
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            utf8.formIndex(after: &index)
            runStart = index
        }
        bytes.append(contentsOf: utf8[runStart..<index])
        bytes.append(UInt8(ascii: "\""))
    }
}
