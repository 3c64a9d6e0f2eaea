import HeraldCore
import Testing

@Suite("Subscriber fields from a body (§3.1)")
struct SubscriberFieldsBodyTests {
    @Test("scalars are stored as their text")
    func scalars() throws {
        let fields = try SubscriberFields.parse(from: json(#"{"lang":"fr","badge":5,"version":7.5,"category":true,"contentAvailable":false,"proto":"apns","token":"x","other":{}}"#))
        #expect(fields == SubscriberFields(lang: "fr", badge: "5", version: "7.5", category: "true", contentAvailable: "false"))
    }

    @Test("form bodies give strings")
    func formBody() throws {
        let fields = try SubscriberFields.parse(from: form("proto=apns&token=T&lang=fr&badge=0"))
        #expect(fields == SubscriberFields(lang: "fr", badge: "0"))
    }

    @Test("null is not given, and does not clear an earlier value")
    func nullIsNotGiven() throws {
        #expect(try SubscriberFields.parse(from: json(#"{"lang":null,"badge":1}"#)) == SubscriberFields(badge: "1"))
        #expect(try SubscriberFields.parse(from: json(#"{"lang":"fr","lang":null}"#)) == SubscriberFields(lang: "fr"))
        #expect(try SubscriberFields.parse(from: json(#"{"lang":null}"#)).isEmpty)
    }

    @Test("the later key wins")
    func laterWins() throws {
        #expect(try SubscriberFields.parse(from: json(#"{"badge":1,"badge":"2"}"#)) == SubscriberFields(badge: "2"))
    }

    @Test("an object or array is refused, first in body order", arguments: [
        (#"{"badge":[1]}"#, "badge"),
        (#"{"lang":{}}"#, "lang"),
        (#"{"version":"1","category":[],"lang":{}}"#, "category"),
        (#"{"contentAvailable":{"a":1},"badge":[]}"#, "contentAvailable"),
    ])
    func containers(_ body: String, _ field: String) {
        #expect(throws: PayloadError.invalidValue(field)) { try SubscriberFields.parse(from: json(body)) }
        #expect(PayloadError.invalidValue(field).reason == "Invalid value for `\(field)'")
    }

    @Test("form brackets and repeated keys are containers too")
    func formContainers() {
        #expect(throws: PayloadError.invalidValue("lang")) { try SubscriberFields.parse(from: form("lang[x]=fr")) }
        #expect(throws: PayloadError.invalidValue("badge")) { try SubscriberFields.parse(from: form("badge=1&badge=2")) }
    }

    @Test("a text with a NUL character is refused: PostgreSQL cannot store it, so no backend takes it")
    func nulCharacter() {
        #expect(throws: PayloadError.invalidValue("category")) { try SubscriberFields.parse(from: form("lang=fr&category=a%00b")) }
        #expect(throws: PayloadError.invalidValue("lang")) { try SubscriberFields.parse(from: json(#"{"lang":"f\u0000r"}"#)) }
    }

    @Test("unknown keys are ignored whatever their value; a non-object body gives no fields")
    func ignored() throws {
        #expect(try SubscriberFields.parse(from: json(#"{"foo":{},"token":[1]}"#)).isEmpty)
        #expect(try SubscriberFields.parse(from: .array([.string("lang")])).isEmpty)
    }
}
