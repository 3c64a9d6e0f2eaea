import HeraldCore
import Testing

@Suite("Event JSON (§10.3, §12.1)")
struct NotificationJSONTests {
    @Test("empty maps are {} and keys come in the fixed order")
    func emptyMaps() {
        let notification = PublishedEvent(event: "e1")
        #expect(notification.eventJSON(includeText: true) == #"{"event":"e1","title":{},"message":{},"data":{}}"#)
        #expect(notification.eventJSON(includeText: false) == #"{"event":"e1","data":{}}"#)
    }

    @Test("vars and scalar keys are never included; text is escaped, not ASCII-fied")
    func content() {
        let notification = PublishedEvent(
            event: "unicast:abc",
            title: LocalizedText(["default": "Say \"hi\"", "fr": "Été"]),
            message: LocalizedText(["default": "line1\nline2"]),
            data: ["url": "https://x/y", "k": "v"],
            vars: ["secret": "s"],
            sound: "ping", badge: "3", ttl: 5
        )
        #expect(notification.eventJSON(includeText: true)
            == #"{"event":"unicast:abc","title":{"default":"Say \"hi\"","fr":"Été"},"message":{"default":"line1\nline2"},"data":{"url":"https://x/y","k":"v"}}"#)
        #expect(notification.eventJSON(includeText: false) == #"{"event":"unicast:abc","data":{"url":"https://x/y","k":"v"}}"#)
    }
}
