import HeraldCore
import Testing

@Suite("Translation fallback (§5.5)")
struct LocalizedTextTests {
    private static let payload =
        "title=my title&title.fr=mon titre&title.en_GB=my british title&msg=my message&msg.fr=mon message&msg.fr_CA=mon message canadien"

    @Test("the §5.5 table", arguments: [
        (nil, "my title", "my message"),
        ("fr", "mon titre", "mon message"),
        ("fr_BE", "mon titre", "mon message"),
        ("fr_CA", "mon titre", "mon message canadien"),
        ("en_GB", "my british title", "my message"),
        ("de", "my title", "my message"),
    ] as [(String?, String, String)])
    func table(_ lang: String?, _ title: String, _ message: String) throws {
        let notification = try PayloadCompiler.compile(form(Self.payload), event: "e")
        #expect(notification.title.resolve(lang: lang) == title)
        #expect(notification.message.resolve(lang: lang) == message)
    }

    @Test("only xx_YY falls back to xx", arguments: [
        ("en-US", "default"), ("fr_ca", "default"), ("fr_CA", "fr"), ("FR_CA", "default"), ("fra_CA", "default"), ("fr_CAN", "default"),
    ])
    func regionalFallback(_ lang: String, _ expected: String) {
        let text = LocalizedText(["default": "default", "fr": "fr", "en": "en"])
        #expect(text.resolve(lang: lang) == expected)
    }

    @Test("§16 item 23: the localization sequence", arguments: [
        ("fr_BE", "mon message"), ("fr_CA", "mon message canadien"), ("de", "my message"), (nil, "my message"),
    ] as [(String?, String)])
    func localizationSequence(_ lang: String?, _ expected: String) throws {
        let notification = try PayloadCompiler.compile(form("msg=my message&msg.fr=mon message&msg.fr_CA=mon message canadien"), event: "e")
        #expect(notification.message.resolve(lang: lang) == expected)
    }

    @Test("no text when there is neither a match nor a non-empty default")
    func noText() throws {
        let notification = try PayloadCompiler.compile(form("msg.fr=bonjour&title="), event: "e")
        #expect(notification.message.resolve(lang: "de") == nil)
        #expect(notification.message.resolve(lang: nil) == nil)
        #expect(notification.message.resolve(lang: "fr") == "bonjour")
        #expect(notification.title.resolve(lang: nil) == nil)  // an empty default counts as none
    }
}
