/// A strict RFC 8259 JSON parser that produces a ``BodyValue``.
///
/// Hand-written because Foundation's `JSONSerialization` loses what the payload
/// rules depend on: object key order, duplicate keys ("the later key wins" is
/// decided in body order) and number literals (`5` must be stored as `"5"`,
/// `1.50` as `"1.50"`). It works on raw bytes and allocates only for the values
/// it returns.
///
/// Accepted: exactly one JSON value surrounded by optional whitespace, with a
/// leading UTF-8 byte order mark tolerated (RFC 8259 §8.1 allows ignoring it).
/// Rejected: trailing data, invalid UTF-8, control characters in strings,
/// lone surrogates, numbers outside the JSON grammar, and nesting deeper than
/// ``maximumDepth``.
public enum JSONBodyParser {
    /// How many arrays and objects may be nested; deeper input is rejected so
    /// that a hostile body cannot exhaust the stack.
    public static let maximumDepth = 64

    /// Parses one JSON text.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSONParseError) -> BodyValue where Bytes.Element == UInt8 {
        // `withContiguousStorageIfAvailable` only rethrows untyped errors, so the typed error travels in a Result.
        let contiguous: Result<BodyValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) -> BodyValue in try parseBuffer(buffer) }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        let result = copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> BodyValue in try parseBuffer(buffer) }
        }
        return try result.get()
    }

    /// Parses one JSON text given as a string.
    public static func parse(_ text: String) throws(JSONParseError) -> BodyValue {
        var text = text
        // Native strings are contiguous; this makes sure bridged ones become so.
        text.makeContiguousUTF8()
        return try parse(text.utf8)
    }

    private static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> BodyValue {
        var parser = Parser(input: buffer)
        return try parser.parseDocument()
    }

    /// The recursive-descent state over one input buffer.
    private struct Parser {
        let input: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0
        /// Reused for strings that contain escapes, so each such string costs one copy.
        var scratch: [UInt8] = []

        init(input: UnsafeBufferPointer<UInt8>) {
            self.input = input
        }

        mutating func parseDocument() throws(JSONParseError) -> BodyValue {
            if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF {
                index = 3
            }
            skipWhitespace()
            let value = try parseValue()
            skipWhitespace()
            guard index == input.count else { throw JSONParseError(offset: index, "unexpected data after the JSON value") }
            return value
        }

        @inline(__always)
        mutating func skipWhitespace() {
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
                default: return
                }
            }
        }

        func unexpected() -> JSONParseError {
            guard index < input.count else { return JSONParseError(offset: index, "unexpected end of input") }
            return JSONParseError(offset: index, "unexpected character")
        }

        mutating func parseValue() throws(JSONParseError) -> BodyValue {
            guard index < input.count else { throw unexpected() }
            switch input[index] {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw unexpected()
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
            let start = index
            let count = literal.utf8CodeUnitCount
            let bytes = literal.utf8Start
            for offset in 0..<count {
                guard index < input.count, input[index] == bytes[offset] else {
                    throw index < input.count ? JSONParseError(offset: start, "invalid literal") : unexpected()
                }
                index += 1
            }
        }

        mutating func enterContainer() throws(JSONParseError) {
            depth += 1
            guard depth <= JSONBodyParser.maximumDepth else {
                throw JSONParseError(offset: index, "nesting deeper than \(JSONBodyParser.maximumDepth) levels")
            }
        }

        mutating func parseObject() throws(JSONParseError) -> BodyValue {
            try enterContainer()
            index += 1
            var members: [(key: String, value: BodyValue)] = []
            skipWhitespace()
            if index < input.count, input[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            while true {
                guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw unexpected() }
                let key = try parseString()
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: ":") else { throw unexpected() }
                index += 1
                skipWhitespace()
                let value = try parseValue()
                members.append((key: key, value: value))
                skipWhitespace()
                guard index < input.count else { throw unexpected() }
                if input[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                } else if input[index] == UInt8(ascii: "}") {
                    index += 1
                    depth -= 1
                    return .object(members)
                } else {
                    throw unexpected()
                }
            }
        }

        mutating func parseArray() throws(JSONParseError) -> BodyValue {
            try enterContainer()
            index += 1
            var elements: [BodyValue] = []
            skipWhitespace()
            if index < input.count, input[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            while true {
                elements.append(try parseValue())
                skipWhitespace()
                guard index < input.count else { throw unexpected() }
                if input[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                } else if input[index] == UInt8(ascii: "]") {
                    index += 1
                    depth -= 1
                    return .array(elements)
                } else {
                    throw unexpected()
                }
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as its literal text.
        mutating func parseNumber() throws(JSONParseError) -> String {
            let start = index
            if input[index] == UInt8(ascii: "-") { index += 1 }
            guard index < input.count, isDigit(input[index]) else { throw invalidNumber(start) }
            if input[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                skipDigits()
            }
            if index < input.count, input[index] == UInt8(ascii: ".") {
                index += 1
                guard index < input.count, isDigit(input[index]) else { throw invalidNumber(start) }
                skipDigits()
            }
            if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
                index += 1
                if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
                guard index < input.count, isDigit(input[index]) else { throw invalidNumber(start) }
                skipDigits()
            }
            return String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
        }

        func invalidNumber(_ start: Int) -> JSONParseError {
            index < input.count ? JSONParseError(offset: start, "invalid number") : unexpected()
        }

        @inline(__always)
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        @inline(__always)
        mutating func skipDigits() {
            while index < input.count, isDigit(input[index]) { index += 1 }
        }

        /// Parses a string starting at its opening quote.
        mutating func parseString() throws(JSONParseError) -> String {
            index += 1
            let start = index
            var asciiOnly = true
            // Fast path: no escapes, so the string is a slice of the input.
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: input[start..<index])
                    guard asciiOnly || UTF8Validation.isValid(slice) else { throw JSONParseError(offset: start, "invalid UTF-8 in string") }
                    index += 1
                    return String(decoding: slice, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") { return try parseEscapedString(start: start) }
                if byte < 0x20 { throw JSONParseError(offset: index, "control character in string") }
                if byte >= 0x80 { asciiOnly = false }
                index += 1
            }
            throw unexpected()
        }

        /// The slow path: copies into ``scratch`` while resolving escapes.
        mutating func parseEscapedString(start: Int) throws(JSONParseError) -> String {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<index]))
            while index < input.count {
                let byte = input[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    // Escapes only ever produce complete, valid sequences, so validating the
                    // whole result catches exactly the invalid raw bytes.
                    guard UTF8Validation.isValid(scratch) else { throw JSONParseError(offset: start, "invalid UTF-8 in string") }
                    return String(decoding: scratch, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    try parseEscape()
                case 0..<0x20:
                    throw JSONParseError(offset: index, "control character in string")
                default:
                    scratch.append(byte)
                    index += 1
                }
            }
            throw unexpected()
        }

        mutating func parseEscape() throws(JSONParseError) {
            let escapeStart = index
            index += 1
            guard index < input.count else { throw unexpected() }
            let byte = input[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try parseHex4()
                let scalarValue: UInt32
                switch unit {
                case 0xD800...0xDBFF:
                    guard index + 1 < input.count, input[index] == UInt8(ascii: "\\"), input[index + 1] == UInt8(ascii: "u") else {
                        throw JSONParseError(offset: escapeStart, "lone surrogate in string")
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseError(offset: escapeStart, "lone surrogate in string") }
                    scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                case 0xDC00...0xDFFF:
                    throw JSONParseError(offset: escapeStart, "lone surrogate in string")
                default:
                    scalarValue = UInt32(unit)
                }
                appendUTF8(scalarValue)
            default:
                throw JSONParseError(offset: escapeStart, "invalid escape in string")
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt16 {
            var value: UInt16 = 0
            for _ in 0..<4 {
                guard index < input.count else { throw unexpected() }
                let byte = input[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw JSONParseError(offset: index, "invalid \\u escape in string")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        mutating func appendUTF8(_ scalar: UInt32) {
            switch scalar {
            case 0..<0x80:
                scratch.append(UInt8(scalar))
            case 0x80..<0x800:
                scratch.append(UInt8(0xC0 | scalar >> 6))
                scratch.append(UInt8(0x80 | scalar & 0x3F))
            case 0x800..<0x10000:
                scratch.append(UInt8(0xE0 | scalar >> 12))
                scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                scratch.append(UInt8(0x80 | scalar & 0x3F))
            default:
                scratch.append(UInt8(0xF0 | scalar >> 18))
                scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                scratch.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
    }
}
