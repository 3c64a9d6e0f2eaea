import HeraldCore
import Testing

@Suite("JSONBodyParser")
struct JSONBodyParserTests {
    @Test("object keys keep body order, duplicates included")
    func keyOrderAndDuplicates() throws {
        let value = try json(#"{"b":1,"a":"x","b":true,"c":null}"#)
        #expect(value == object(("b", .number("1")), ("a", .string("x")), ("b", .bool(true)), ("c", .null)))
        #expect(value["b"] == .bool(true))
    }

    @Test("nested containers and whitespace")
    func nested() throws {
        let value = try json(" \t\r\n{ \"a\" : [ 1 , { \"b\" : [ ] } , \"s\" ] , \"o\" : { } }\n ")
        #expect(value == object(("a", .array([.number("1"), object(("b", .array([]))), .string("s")])), ("o", .object([]))))
    }

    @Test("scalars at the top level")
    func topLevelScalars() throws {
        #expect(try json("true") == .bool(true))
        #expect(try json("false") == .bool(false))
        #expect(try json("null") == .null)
        #expect(try json(#""x""#) == .string("x"))
        #expect(try json(" 12 ") == .number("12"))
    }

    @Test("numbers keep their literal text", arguments: [
        "0", "-0", "5", "-12", "1.50", "0.0", "-1e3", "1E+2", "2.5e-3", "1e0", "123456789012345678901234567890", "-0.000e-00",
    ])
    func numberLiterals(_ literal: String) throws {
        #expect(try json("[\(literal)]") == .array([.number(literal)]))
        #expect(try json(literal) == .number(literal))
    }

    @Test("numbers outside the JSON grammar are rejected", arguments: [
        "01", "-", "1.", ".5", "+1", "1e", "1e+", "0x1", "NaN", "Infinity", "-Infinity", "-01", "1.e3", "--1", "1.5.2", "00", "1e1.5",
    ])
    func invalidNumbers(_ literal: String) {
        #expect(throws: JSONParseError.self) { try json("[\(literal)]") }
    }

    @Test("string escapes", arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u20ac""#, "€"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD83D\uDE00 ok""#, "😀 ok"),
        (#""a\u0000b""#, "a\u{0}b"),
        (#""héllo ✓ 😀""#, "héllo ✓ 😀"),
        (#""before \n after é""#, "before \n after é"),
        (#""""#, ""),
        (#""/""#, "/"),
    ])
    func escapes(_ input: String, _ expected: String) throws {
        #expect(try json(input) == .string(expected))
    }

    @Test("malformed strings are rejected", arguments: [
        #""\ud83d""#,  // lone high surrogate
        #""\ud83dx""#,
        #""\ud83d\u0041""#,  // high surrogate followed by a non-surrogate
        #""\ud83d\ud83d""#,
        #""\ude00""#,  // lone low surrogate
        #""\x""#,
        #""\u12G4""#,
        #""\u12""#,
        #""\'""#,
        "\"a\u{1}b\"",  // raw control character
        "\"a\nb\"",
        "\"a\tb\"",
        #""abc"#,  // unterminated
        #""abc\"#,
    ])
    func malformedStrings(_ input: String) {
        #expect(throws: JSONParseError.self) { try json(input) }
    }

    @Test("invalid UTF-8 is rejected", arguments: [
        [0x22, 0xC3, 0x28, 0x22],  // bad continuation
        [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0xE2, 0x82, 0x22],  // truncated
        [0x22, 0xFF, 0x22],
        [0x22, 0x5C, 0x6E, 0xC3, 0x22],  // truncated after an escape (slow path)
    ] as [[UInt8]])
    func invalidUTF8(_ bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONBodyParser.parse(bytes) }
    }

    @Test("structural errors", arguments: [
        "", " ", "{", "}", "[", "[1,]", "{\"a\":1,}", "{,}", "{'a':1}", "{a:1}", "{\"a\" 1}", "{\"a\":}",
        "[1 2]", "{\"a\":1 \"b\":2}", "tru", "nul", "True", "falsey", "[true false]", "{\"a\":1}}", "{} x", "{}{}",
        "1 2", "\"a\" \"b\"", "[1]]", "{\"a\":1}\u{0}", "/* c */ {}",
    ])
    func structuralErrors(_ input: String) {
        #expect(throws: JSONParseError.self) { try json(input) }
    }

    @Test("trailing garbage is reported at its offset")
    func trailingGarbageOffset() {
        #expect(throws: JSONParseError(offset: 3, "unexpected data after the JSON value")) { try json("{} x") }
    }

    @Test("a leading byte order mark is ignored")
    func byteOrderMark() throws {
        #expect(try JSONBodyParser.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a":"b"}"#.utf8)) == object(("a", .string("b"))))
    }

    @Test("nesting up to 64 levels is accepted, 65 is not")
    func depthLimit() throws {
        #expect(JSONBodyParser.maximumDepth == 64)
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        var value = try json(deepest)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            value = elements.first ?? .null
        }
        #expect(levels == 64)
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try json(tooDeep) }
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONParseError.self) { try json(objects) }
        let deepObjects = String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64)
        #expect(throws: Never.self) { try json(deepObjects) }
    }

    @Test("siblings do not add to the depth")
    func siblingsDoNotNest() throws {
        let wide = "[" + Array(repeating: String(repeating: "[", count: 63) + String(repeating: "]", count: 63), count: 3).joined(separator: ",") + "]"
        #expect(throws: Never.self) { try json(wide) }
    }

    @Test("inputs without contiguous storage parse the same")
    func nonContiguousInput() throws {
        let text = #"{"k":["v",1.5]}"#
        let lazyBytes = Array(text.utf8).lazy.map { $0 }
        #expect(try JSONBodyParser.parse(lazyBytes) == json(text))
        #expect(try JSONBodyParser.parse(text) == json(text))
        #expect(try JSONBodyParser.parse(text.utf8) == json(text))
    }
}
