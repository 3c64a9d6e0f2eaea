import HeraldCore
import Testing

@testable import HeraldCompatAPNsMS

/// The parts of the apns-ms stand-in that imitate Go (compat.md §4.3, §4.6), checked without a
/// socket: numbers, strings and times as Go's `encoding/json` wrote them, the decoder's messages,
/// and the status texts no simulator fault produces.
@Suite struct ApnsMSEncodingTests {
    @Test(arguments: [
        ("1", "1"), ("1.0", "1"), ("-0", "-0"), ("0.0", "0"), ("1.5", "1.5"), ("100000", "100000"), ("1e20", "100000000000000000000"),
        ("1e21", "1e+21"), ("123456789e20", "1.23456789e+28"), ("0.000001", "0.000001"), ("0.0000001", "1e-7"),
        ("1.5e-10", "1.5e-10"), ("5e-324", "5e-324"), ("9007199254740993", "9007199254740992"),
        ("12345678901234567890", "12345678901234567000"), ("-2.5E3", "-2500"), ("0.1", "0.1"), ("1e100", "1e+100"),
    ])
    func numbersAreWrittenAsGoWritesFloat64(literal: String, expected: String) {
        #expect(GoJSONWriter.float64(literal) == expected)
    }

    @Test func stringsAreEscapedAsGoEscapesThem() {
        var writer = GoJSONWriter()
        writer.string("a\"b\\c<d>e&f\u{2028}\u{2029}\u{7F}\u{01}\n\r\t\u{08}\u{0C}é/")
        #expect(writer.text == #""a\"b\\c\u003cd\u003ee\u0026f\u2028\u2029"# + "\u{7F}" + #"\u0001\n\r\t\b\fé/""#)
    }

    @Test func mapsAreSortedByBytesAndTheLastDuplicateWins() throws {
        var writer = GoJSONWriter()
        writer.interfaceValue(try GoJSONReader.firstValue(Array(#"{"b":1,"a":{"y":2,"x":[true,null]},"B":3,"b":4,"é":5,"z":6}"#.utf8)))
        #expect(writer.text == #"{"B":3,"a":{"x":[true,null],"y":2},"b":4,"z":6,"é":5}"#)
    }

    @Test func invalidUTF8AndLoneSurrogatesBecomeReplacementCharacters() throws {
        let bytes: [UInt8] = Array(#"""#.utf8) + [0x61, 0xE2, 0x82, 0x41, 0xFF] + Array(#"\ud800\u0041\ud83d\ude00""#.utf8)
        let value = try GoJSONReader.firstValue(bytes)
        #expect(value == .string("a\u{FFFD}\u{FFFD}A\u{FFFD}\u{FFFD}A\u{1F600}"))
    }

    @Test(arguments: [
        ("{", "unexpected EOF"),
        ("\u{FEFF}{}", "invalid character 'ï' looking for beginning of value"),
        ("[1,]", "invalid character ']' looking for beginning of value"),
        ("{,}", "invalid character ',' looking for beginning of object key string"),
        ("[1 2]", "invalid character '2' after array element"),
        ("tru", "unexpected EOF"),
        ("trUe", "invalid character 'U' in literal true (expecting 'u')"),
        ("-x", "invalid character 'x' in numeric literal"),
        ("1.x", "invalid character 'x' after decimal point in numeric literal"),
        ("1ex", "invalid character 'x' in exponent of numeric literal"),
        ("\"a\nb\"", #"invalid character '\n' in string literal"#),
        (#""\x""#, "invalid character 'x' in string escape code"),
        (#""\u12g4""#, #"invalid character 'g' in \u hexadecimal character escape"#),
        ("\"a\"b", "invalid character 'b' after top-level value"),
        ("{\"a\":'", #"invalid character '\'' looking for beginning of value"#),
    ])
    func syntaxErrorsCarryGosMessages(body: String, message: String) {
        #expect(throws: GoJSONError.self) { try GoJSONReader.firstValue(Array(body.utf8)) }
        do {
            _ = try GoJSONReader.firstValue(Array(body.utf8))
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func onlyTheFirstValueIsRead() throws {
        #expect(try GoJSONReader.firstValue(Array(#"{"a":1}{"#.utf8)) == .object([("a", .number("1"))]))
        #expect(try GoJSONReader.firstValue(Array("[] nonsense".utf8)) == .array([]))
        #expect(try GoJSONReader.firstValue(Array("12 {".utf8)) == .number("12"))
        #expect(try GoJSONReader.firstValue(Array(#""a" b"#.utf8)) == .string("a"), "a scalar ends at whitespace")
    }

    @Test func timesKeepTheirOffsetAndDropZeroFractions() throws {
        let time = try RFC3339Time(parsing: "2015-10-22T10:00:00.120000+02:00")
        #expect(time.text == "2015-10-22T10:00:00.12+02:00")
        #expect(time.unixSeconds == 1_445_500_800)
        #expect(try RFC3339Time(parsing: "2016-02-29T23:59:59.0000000001-00:30").text == "2016-02-29T23:59:59-00:30")
        #expect(try RFC3339Time(parsing: "2015-10-22T08:00:00+00:00").text == "2015-10-22T08:00:00Z")
        #expect(RFC3339Time(unixSeconds: 1_445_423_551, offset: 7200).text == "2015-10-21T12:32:31+02:00")
        #expect(RFC3339Time(unixSeconds: -1, offset: 0).text == "1969-12-31T23:59:59Z")
        for (text, message) in [
            ("2015-13-01T00:00:00Z", #"parsing time "2015-13-01T00:00:00Z": month out of range"#),
            ("2015-02-29T00:00:00Z", #"parsing time "2015-02-29T00:00:00Z": day out of range"#),
            ("2015-10-22 10:00:00Z", #"parsing time "2015-10-22 10:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00Z" as "T""#),
            ("2015-10-22T10:00:00Zx", #"parsing time "2015-10-22T10:00:00Zx": extra text: "x""#),
        ] {
            #expect(throws: GoJSONError.time(message)) { try RFC3339Time(parsing: text) }
        }
    }

    @Test func statusTextsFollowTheBinaryProtocolTable() {
        let shutdown = DeliveryOutcome(.transient, reason: "the server is closing the connection (GOAWAY: Shutdown)")
        #expect(ApnsMSAnswerTable.error(for: shutdown, identifier: "01020304")?.text == "apns: Shutdown for notification #01020304")
        let refused = DeliveryOutcome(.transient, reason: "could not connect: connection refused")
        #expect(ApnsMSAnswerTable.error(for: refused, identifier: "01020304")?.text == "apns/worker: could not connect: connection refused")
        #expect(ApnsMSAnswerTable.error(for: .delivered, identifier: "01020304") == nil)
        #expect(ApnsMSAnswerTable.error(for: nil, identifier: "01020304") == nil)
        #expect(ApnsMSAnswerTable.text(status: 400, reason: "MissingDeviceToken") == "Missing device token")
        #expect(ApnsMSAnswerTable.text(status: 400, reason: "BadTopic") == "Missing topic")
        #expect(ApnsMSAnswerTable.text(status: 400, reason: "TopicDisallowed") == "Missing topic")
        #expect(ApnsMSAnswerTable.text(status: 410, reason: "ExpiredToken") == "Invalid token")
        #expect(ApnsMSAnswerTable.text(status: 403, reason: "InvalidProviderToken") == "Processing error")
        #expect(ApnsMSAnswerTable.text(status: 404, reason: "BadPath") == "Unknown")
    }
}
