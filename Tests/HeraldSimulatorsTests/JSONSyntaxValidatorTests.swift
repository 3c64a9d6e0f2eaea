import HeraldSimulators
import Testing

@Suite struct JSONSyntaxValidatorTests {
    private func isObject(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { JSONSyntaxValidator.isObject($0) }
    }

    @Test(arguments: [
        #"{}"#,
        #" {"aps":{"alert":{"title":"Hi","body":"There"},"badge":0,"sound":"default"}} "#,
        #"{"a":[1,-2.5e10,0.1,true,false,null,"x\"y\\z\u00e9\n"],"b":{"c":[]}}"#,
        #"{"emoji":"😀","nested":[[[{}]]]}"#,
    ])
    func acceptsObjects(_ text: String) {
        #expect(self.isObject(text))
    }

    @Test(arguments: [
        "", "[]", "\"text\"", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":01}", "{\"a\":1.}",
        "{\"a\":tru}", "{\"a\":\"\\x\"}", "{\"a\":\"\u{01}\"}", "{} {}", "{\"a\":[1,]}",
    ])
    func rejectsEverythingElse(_ text: String) {
        #expect(!self.isObject(text))
    }

    @Test func boundsNesting() {
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(!self.isObject("{\"a\":\(deep)}"))
        #expect(Array("[1]".utf8).withUnsafeBytes { JSONSyntaxValidator.isValue($0) })
    }
}
