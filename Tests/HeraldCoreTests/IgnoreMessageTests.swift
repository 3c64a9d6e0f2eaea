import HeraldCore
import Testing

@Suite("ignore_message (§4.12)")
struct IgnoreMessageTests {
    @Test("the §4.12 table", arguments: [
        (BodyValue.number("1"), true), (.bool(true), true), (.string("1"), true), (.string("true"), true),
        (.number("0"), false), (.bool(false), false), (.string("0"), false), (.string("false"), false), (.string(""), false), (.null, false),
    ] as [(BodyValue, Bool)])
    func table(_ value: BodyValue, _ expected: Bool) {
        #expect(IgnoreMessage.parse(value) == expected)
    }

    @Test("absent is not silent")
    func absent() {
        #expect(IgnoreMessage.parse(nil) == false)
    }

    @Test("anything else is invalid", arguments: [
        BodyValue.string("maybe"), .string("TRUE"), .string("yes"), .string("2"), .string(" 1"), .string("01"),
        .number("2"), .number("1.0"), .number("-1"), .number("0.0"), .array([]), .array([.string("1")]), .object([]),
    ])
    func invalid(_ value: BodyValue) {
        #expect(IgnoreMessage.parse(value) == nil)
    }

    @Test("form values as the single route receives them")
    func formValues() throws {
        #expect(IgnoreMessage.parse(try form("ignore_message=1")["ignore_message"]) == true)
        #expect(IgnoreMessage.parse(try form("ignore_message=true")["ignore_message"]) == true)
        #expect(IgnoreMessage.parse(try form("ignore_message=0")["ignore_message"]) == false)
        #expect(IgnoreMessage.parse(try form("ignore_message=")["ignore_message"]) == false)
        #expect(IgnoreMessage.parse(try form("ignore_message=maybe")["ignore_message"]) == nil)
        #expect(IgnoreMessage.parse(try form("ignore_message=1&ignore_message=1")["ignore_message"]) == nil)
        #expect(IgnoreMessage.parse(try form("other=1")["ignore_message"]) == false)
    }

    @Test("bulk route options (§4.8)")
    func bulkOptions() throws {
        let body = try json(#"{"sport":{},"music":{"ignore_message":true},"news":null,"tv":"x","web":{"ignore_message":"maybe"},"a":{"other":1},"b":[1]}"#)
        let options = Dictionary(uniqueKeysWithValues: (body.objectMembers ?? []).map { ($0.key, IgnoreMessage.parse(options: $0.value)) })
        #expect(options["sport"] == false)
        #expect(options["music"] == true)
        #expect(options["news"] == false)
        #expect(options["tv"] == false)
        #expect(options["web"] == .some(nil))
        #expect(options["a"] == false)
        #expect(options["b"] == false)
    }
}
