import HeraldCore

/// Reads the first JSON value of a body as Go's `json.Decoder.Decode` did for apns-ms (compat.md
/// §4.2): what follows a top-level object or array is never looked at, syntax errors carry Go's
/// texts, and strings are decoded as Go decodes them.
///
/// Go's decoder is more lenient than ``JSONBodyParser`` in two ways its clients may rely on, which
/// is why this is a reader of its own: invalid UTF-8 and lone surrogate escapes become U+FFFD
/// instead of refusals, and a byte order mark is not skipped (it is an invalid character).
enum GoJSONReader {
    /// How deep arrays and objects may nest. Go allows 10,000; a recursive reader on a task's stack
    /// must stop earlier, and no notification nests anywhere near this.
    static let maximumDepth = 1000

    /// The first JSON value of `bytes`; throws Go's decoder message.
    static func firstValue(_ bytes: [UInt8]) throws(GoJSONError) -> BodyValue {
        var reader = Reader(input: bytes)
        return try reader.readTopLevel()
    }

    private struct Reader {
        let input: [UInt8]
        var index = 0
        var depth = 0

        init(input: [UInt8]) {
            self.input = input
        }

        mutating func readTopLevel() throws(GoJSONError) -> BodyValue {
            skipWhitespace()
            let value = try readValue()
            // Go's scanner needs one byte past a scalar to know it ended: only whitespace (or the
            // end) may follow. A closing bracket ends an object or array without looking further.
            if case .object = value { return value }
            if case .array = value { return value }
            if index < input.count, !Self.isWhitespace(input[index]) {
                throw .invalidCharacter(input[index], "after top-level value")
            }
            return value
        }

        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        mutating func skipWhitespace() {
            while index < input.count, Self.isWhitespace(input[index]) { index += 1 }
        }

        /// The byte at the cursor, or Go's `unexpected EOF`.
        func current() throws(GoJSONError) -> UInt8 {
            guard index < input.count else { throw .unexpectedEOF }
            return input[index]
        }

        mutating func readValue() throws(GoJSONError) -> BodyValue {
            let byte = try current()
            switch byte {
            case UInt8(ascii: "{"): return try readObject()
            case UInt8(ascii: "["): return try readArray()
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try readLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
            default: throw .invalidCharacter(byte, "looking for beginning of value")
            }
        }

        mutating func enter() throws(GoJSONError) {
            depth += 1
            guard depth <= GoJSONReader.maximumDepth else { throw .tooDeep }
        }

        mutating func readObject() throws(GoJSONError) -> BodyValue {
            try enter()
            index += 1
            var members: [(key: String, value: BodyValue)] = []
            skipWhitespace()
            if try current() == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            while true {
                let start = try current()
                guard start == UInt8(ascii: "\"") else { throw .invalidCharacter(start, "looking for beginning of object key string") }
                let key = try readString()
                skipWhitespace()
                let colon = try current()
                guard colon == UInt8(ascii: ":") else { throw .invalidCharacter(colon, "after object key") }
                index += 1
                skipWhitespace()
                members.append((key, try readValue()))
                skipWhitespace()
                let next = try current()
                index += 1
                switch next {
                case UInt8(ascii: ","):
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    depth -= 1
                    return .object(members)
                default:
                    throw .invalidCharacter(next, "after object key:value pair")
                }
            }
        }

        mutating func readArray() throws(GoJSONError) -> BodyValue {
            try enter()
            index += 1
            var elements: [BodyValue] = []
            skipWhitespace()
            if try current() == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            while true {
                elements.append(try readValue())
                skipWhitespace()
                let next = try current()
                index += 1
                switch next {
                case UInt8(ascii: ","):
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    depth -= 1
                    return .array(elements)
                default:
                    throw .invalidCharacter(next, "after array element")
                }
            }
        }

        mutating func readLiteral(_ literal: String) throws(GoJSONError) {
            for expected in literal.utf8 {
                let byte = try current()
                guard byte == expected else {
                    throw .invalidCharacter(byte, "in literal \(literal) (expecting \(GoJSONError.quoteChar(expected)))")
                }
                index += 1
            }
        }

        /// Go's number grammar; the literal text is kept (converted later, per target type).
        mutating func readNumber() throws(GoJSONError) -> String {
            let start = index
            if input[index] == UInt8(ascii: "-") {
                index += 1
                let byte = try current()
                guard Self.isDigit(byte) else { throw .invalidCharacter(byte, "in numeric literal") }
            }
            if input[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                skipDigits()
            }
            if index < input.count, input[index] == UInt8(ascii: ".") {
                index += 1
                let byte = try current()
                guard Self.isDigit(byte) else { throw .invalidCharacter(byte, "after decimal point in numeric literal") }
                skipDigits()
            }
            if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
                index += 1
                var byte = try current()
                if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                    index += 1
                    byte = try current()
                }
                guard Self.isDigit(byte) else { throw .invalidCharacter(byte, "in exponent of numeric literal") }
                skipDigits()
            }
            return String(decoding: input[start..<index], as: UTF8.self)
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func skipDigits() {
            while index < input.count, Self.isDigit(input[index]) { index += 1 }
        }

        /// A string from its opening quote, decoded as Go's `unquote` does.
        mutating func readString() throws(GoJSONError) -> String {
            index += 1
            var bytes: [UInt8] = []
            var raw: [UInt8] = []  // unescaped bytes, repaired per rune when a run ends
            while true {
                let byte = try current()
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    GoUTF8.appendRepaired(raw, to: &bytes)
                    return String(decoding: bytes, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    GoUTF8.appendRepaired(raw, to: &bytes)
                    raw.removeAll(keepingCapacity: true)
                    try readEscape(into: &bytes)
                case 0..<0x20:
                    throw .invalidCharacter(byte, "in string literal")
                default:
                    raw.append(byte)
                }
            }
        }

        mutating func readEscape(into bytes: inout [UInt8]) throws(GoJSONError) {
            let byte = try current()
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(try readHex4())
                if (0xD800...0xDFFF).contains(scalar) {
                    // A high surrogate followed by an escaped low one is one character; anything else
                    // is U+FFFD, and what follows is read on its own (Go's unquote).
                    if scalar <= 0xDBFF, index + 1 < input.count, input[index] == UInt8(ascii: "\\"), input[index + 1] == UInt8(ascii: "u") {
                        let saved = index
                        index += 2
                        let low = UInt32(try readHex4())
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = saved
                            scalar = 0xFFFD
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                }
                bytes.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default:
                throw .invalidCharacter(byte, "in string escape code")
            }
        }

        mutating func readHex4() throws(GoJSONError) -> UInt16 {
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = try current()
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw .invalidCharacter(byte, "in \\u hexadecimal character escape")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }
    }
}
