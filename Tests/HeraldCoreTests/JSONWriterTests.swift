import HeraldCore
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("string escaping as JSON.stringify", arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("quote \" backslash \\", #""quote \" backslash \\""#),
        ("a/b", #""a/b""#),
        ("é ✓ 😀 \u{2028}", "\"é ✓ 😀 \u{2028}\""),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        ("\u{0}\u{1}\u{1F}\u{B}", #""\u0000\u0001\u001f\u000b""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("<script>&'", #""<script>&'""#),
    ])
    func escaping(_ text: String, _ expected: String) {
        #expect(JSONWriter.quoted(text) == expected)
    }

    @Test("escaped strings read back unchanged", arguments: ["a\"b\\c", "\u{0}\u{1F}\n", "é😀/", "x\u{7F}"])
    func roundTrip(_ text: String) throws {
        #expect(try JSONBodyParser.parse(JSONWriter.quoted(text)) == .string(text))
    }

    @Test("commas between members and elements, none after openings")
    func structure() {
        var json = JSONWriter()
        json.beginObject()
        json.key("a")
        json.beginArray()
        json.number(1)
        json.number(Int64(-2))
        json.beginObject()
        json.key("b")
        json.null()
        json.endObject()
        json.beginArray()
        json.endArray()
        json.endArray()
        json.key("c")
        json.bool(true)
        json.key("d")
        json.raw("1.50")
        json.key("e")
        json.object([:])
        json.key("f")
        json.object(["x": "1", "y": "2"])
        json.endObject()
        #expect(json.text == #"{"a":[1,-2,{"b":null},[]],"c":true,"d":1.50,"e":{},"f":{"x":"1","y":"2"}}"#)
        #expect(json.bytes == Array(json.text.utf8))
    }

    @Test("body values are written compactly, in order, duplicates and literals kept")
    func bodyValues() throws {
        let text = #"{"b":1.50,"a":[true,false,null,"s"],"b":{"c":-1e3}}"#
        var json = JSONWriter()
        json.value(try JSONBodyParser.parse(text))
        #expect(json.text == text)
    }

    @Test("the §3.1 typing rule", arguments: [
        ("0", true), ("10", true), ("-10", true), ("5", true), ("1332953375", true),
        ("9007199254740991", true), ("-9007199254740991", true), ("1000000000000000", true),
        ("9007199254740992", false), ("-9007199254740992", false), ("9999999999999999", false), ("10000000000000000", false),
        ("7.5", false), ("true", false), ("007", false), ("+5", false), ("-0", false), ("00", false), ("", false), ("-", false),
        ("1e3", false), (" 1", false), ("1 ", false), ("0x1", false), ("١", false),
    ])
    func typingRule(_ text: String, _ isNumber: Bool) {
        #expect(JSONWriter.isSafeCanonicalInteger(text) == isNumber)
        var json = JSONWriter()
        json.storedText(text)
        #expect(json.text == (isNumber ? text : JSONWriter.quoted(text)))
    }
}
