import HeraldCore
import Testing

@Suite("Subscriber JSON (§3.1, §4.2, §4.3)")
struct SubscriberJSONTests {
    private let token = "fe66489f304dc75b8d6e8200dff8a456e8daeacec428b427e9518741c92c6660"

    @Test("the §4.2 example, with and without the id")
    func registrationExample() {
        let subscriber = Subscriber(
            id: SubscriberID(rawValue: "J8lHY4X1XkU"), proto: "apns", token: token,
            fields: SubscriberFields(lang: "fr", badge: "0"), created: 1_332_953_375, updated: 1_332_953_375
        )
        #expect(subscriber.jsonText(includeID: true)
            == #"{"proto":"apns","token":"\#(token)","lang":"fr","badge":0,"created":1332953375,"updated":1332953375,"id":"J8lHY4X1XkU"}"#)
        #expect(subscriber.jsonText(includeID: false)
            == #"{"proto":"apns","token":"\#(token)","lang":"fr","badge":0,"created":1332953375,"updated":1332953375}"#)
    }

    @Test("fields never set are absent (§16 item 4)")
    func unsetFields() {
        let subscriber = Subscriber(id: SubscriberID(rawValue: "abc"), proto: "apns", token: token, created: 1, updated: 2)
        #expect(subscriber.jsonText(includeID: false) == #"{"proto":"apns","token":"\#(token)","created":1,"updated":2}"#)
    }

    @Test("every field in order, each typed by the rule")
    func allFields() {
        let subscriber = Subscriber(
            id: SubscriberID(rawValue: "12345678901"), proto: "http", token: "12345",
            fields: SubscriberFields(lang: "007", badge: "10", version: "7.5", category: "true", contentAvailable: "1"),
            created: 10, updated: 20, failures: 3
        )
        #expect(subscriber.jsonText(includeID: true)
            == #"{"proto":"http","token":12345,"lang":"007","badge":10,"version":"7.5","category":"true","contentAvailable":1,"created":10,"updated":20,"id":"12345678901"}"#)
    }

    @Test("values are typed at the 2^53 boundary and escaped", arguments: [
        ("9007199254740991", "9007199254740991"),
        ("9007199254740992", #""9007199254740992""#),
        ("-9007199254740991", "-9007199254740991"),
        ("+5", #""+5""#),
        ("-0", #""-0""#),
        ("a\"b", #""a\"b""#),
    ])
    func badgeTyping(_ badge: String, _ written: String) {
        let subscriber = Subscriber(id: SubscriberID(rawValue: "x"), proto: "apns", token: "t", fields: SubscriberFields(badge: badge), created: 0, updated: 0)
        #expect(subscriber.jsonText(includeID: false) == #"{"proto":"apns","token":"t","badge":\#(written),"created":0,"updated":0}"#)
    }

    @Test("a webhook URL token is written unescaped apart from JSON's rules")
    func urlToken() throws {
        let subscriber = Subscriber(id: SubscriberID(rawValue: "x"), proto: "http", token: "https://example.com/hook?a=1&b=é", created: 0, updated: 0)
        let text = subscriber.jsonText(includeID: true)
        #expect(text.contains(#""token":"https://example.com/hook?a=1&b=é""#))
        #expect(try JSONBodyParser.parse(text)["token"] == .string("https://example.com/hook?a=1&b=é"))
    }
}
