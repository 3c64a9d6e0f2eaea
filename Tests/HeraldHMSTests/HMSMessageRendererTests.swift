import HeraldCore
import HeraldHMS
import Testing

/// How a published event becomes a Push Kit `message`: notification or data message, the subscriber's language,
/// `data` as a JSON text, the Android options, the badge and the size limit.
@Suite struct HMSMessageRendererTests {
    let renderer = HMSMessageRenderer()
    let now: Int64 = 1_700_000_000

    private func members(_ event: PublishedEvent, _ variant: MessageVariant = MessageVariant(), renderer: HMSMessageRenderer? = nil) -> String? {
        guard case .send(let message) = (renderer ?? self.renderer).render(event, for: variant, now: now) else {
            Issue.record("not rendered")
            return nil
        }
        return message.members
    }

    private let sport = PublishedEvent(
        event: "sport",
        title: LocalizedText(["default": "Goal", "fr": "But"]),
        message: LocalizedText(["default": "1-0", "fr_CA": "1-0 pour Montréal"]),
        data: ["user_id": "42", "n": "7"])

    @Test func titleAndMessageMakeANotificationThatOpensTheApp() {
        #expect(members(sport) == #""data":"{\"user_id\":\"42\",\"n\":\"7\"}","android":{"notification":{"title":"Goal","body":"1-0","click_action":{"type":3}}}"#)
    }

    @Test func theWholeBodyPutsTheTokensFirst() throws {
        guard case .send(let message) = renderer.render(sport, for: MessageVariant(), now: now) else {
            Issue.record("not rendered")
            return
        }
        #expect(message.text(tokens: ["a", "b\"c"]) == #"{"validate_only":false,"message":{"token":["a","b\"c"],"data":"{\"user_id\":\"42\",\"n\":\"7\"}","android":{"notification":{"title":"Goal","body":"1-0","click_action":{"type":3}}}}}"#)
        #expect(message.messageBytes == message.members.utf8.count + 2)
    }

    @Test(arguments: [
        ("fr", #""title":"But","body":"1-0""#),
        ("fr_BE", #""title":"But","body":"1-0""#),
        ("fr_CA", #""title":"But","body":"1-0 pour Montréal""#),
        ("de", #""title":"Goal","body":"1-0""#),
    ])
    func titleAndBodyFollowTheSubscribersLanguage(lang: String, expected: String) {
        #expect(members(sport, MessageVariant(lang: lang))?.contains(#""notification":{\#(expected),"click_action""#) == true)
    }

    @Test func silentSubscriptionsGetADataMessage() {
        #expect(members(sport, MessageVariant(silent: true)) == #""data":"{\"user_id\":\"42\",\"n\":\"7\"}""#)
    }

    @Test func anEventWithoutTitleOrMessageIsADataMessage() {
        let event = PublishedEvent(event: "sync", data: ["cursor": "17"])
        #expect(members(event) == #""data":"{\"cursor\":\"17\"}""#)
    }

    @Test func aMessageAloneIsANotificationWithoutTitle() {
        let event = PublishedEvent(event: "e", message: LocalizedText(["default": "hi"]))
        #expect(members(event) == #""android":{"notification":{"body":"hi","click_action":{"type":3}}}"#)
    }

    @Test func nothingToSendIsSkipped() {
        let silent = PublishedEvent(event: "sport", message: LocalizedText(["default": "hi"]))
        guard case .skip = renderer.render(silent, for: MessageVariant(silent: true), now: now) else {
            Issue.record("a silent subscription with no data keys should be skipped")
            return
        }
        guard case .skip = renderer.render(PublishedEvent(event: "empty"), for: MessageVariant(), now: now) else {
            Issue.record("an event with neither text nor data should be skipped")
            return
        }
    }

    @Test func extensionKeysSetTheAndroidOptions() {
        var event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        event.ttl = 600
        event.priority = .high
        event.collapseKey = "5"
        #expect(members(event) == #""android":{"collapse_key":5,"urgency":"HIGH","ttl":"600s","notification":{"body":"m","click_action":{"type":3}}}"#)
        event.priority = .normal
        #expect(members(event)?.contains(#""urgency":"NORMAL""#) == true)
    }

    @Test(arguments: [("-1", true), ("0", true), ("100", true), (" 42 ", true), ("101", false), ("-2", false), ("score", false), ("1.5", false)])
    func onlyIntegerCollapseKeysFromMinusOneToHundredAreSent(key: String, sent: Bool) {
        var event = PublishedEvent(event: "e", data: ["k": "v"])
        event.collapseKey = key
        let text = members(event) ?? ""
        #expect(text.contains(#""collapse_key":"#) == sent, "\(text)")
    }

    @Test func aDataMessageKeepsTheAndroidOptions() {
        var event = PublishedEvent(event: "e", data: ["k": "v"])
        event.ttl = 60
        #expect(members(event) == #""data":"{\"k\":\"v\"}","android":{"ttl":"60s"}"#)
    }

    @Test func expirationWinsOverTTLAndExpiredIsNotSent() {
        var event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        event.ttl = 600
        event.expiration = now + 30
        #expect(members(event)?.contains(#""ttl":"30s""#) == true)
        event.expiration = now
        guard case .fail(let outcome) = renderer.render(event, for: MessageVariant(), now: now) else {
            Issue.record("an expired notification must not be sent")
            return
        }
        #expect(outcome == DeliveryOutcome(.messageFailure, reason: "Expired"))
    }

    @Test func ttlIsCappedAtFifteenDays() {
        var event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        event.ttl = 10_000_000
        #expect(members(event)?.contains(#""ttl":"1296000s""#) == true)
    }

    @Test func aBadgeNeedsTheConfiguredClass() {
        let event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        let badged = HMSMessageRenderer(badgeClass: "com.example.app.MainActivity")
        #expect(members(event, MessageVariant(badge: 7), renderer: badged) == #""android":{"notification":{"body":"m","click_action":{"type":3},"badge":{"set_num":7,"class":"com.example.app.MainActivity"}}}"#)
        #expect(members(event, MessageVariant(badge: 150), renderer: badged)?.contains(#""set_num":99"#) == true, "Push Kit takes 0 to 99")
        #expect(members(event, MessageVariant(badge: 7))?.contains("badge") == false, "without a class no badge is sent")
        let data = PublishedEvent(event: "e", data: ["k": "v"])
        #expect(members(data, MessageVariant(silent: true, badge: 7), renderer: badged)?.contains("badge") == false, "a data message has no badge")
    }

    @Test func theMessageMayTakeUpTo4096Bytes() {
        // `{"data":"{\"k\":\"<n>\"}"}`: 2 braces, `"data":` (7), the quotes (2) and the escaped object (12 + n).
        let fits = PublishedEvent(event: "e", data: ["k": String(repeating: "x", count: 4096 - 23)])
        guard case .send(let message) = renderer.render(fits, for: MessageVariant(), now: now) else {
            Issue.record("4096 bytes fit")
            return
        }
        #expect(message.messageBytes == 4096)
        let tooBig = PublishedEvent(event: "e", data: ["k": String(repeating: "x", count: 4096 - 22)])
        guard case .fail(let outcome) = renderer.render(tooBig, for: MessageVariant(), now: now) else {
            Issue.record("over 4096 bytes must not be sent")
            return
        }
        #expect(outcome == DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
    }

    @Test func textIsEscapedTwiceInData() {
        let event = PublishedEvent(event: "e", message: LocalizedText(["default": "say \"hi\"\n"]), data: ["q": "a\"b"])
        #expect(members(event) == #""data":"{\"q\":\"a\\\"b\"}","android":{"notification":{"body":"say \"hi\"\n","click_action":{"type":3}}}"#)
    }

    @Test func equalRenderingsAreEqualMessages() {
        guard case .send(let first) = renderer.render(sport, for: MessageVariant(), now: now),
            case .send(let second) = renderer.render(sport, for: MessageVariant(), now: now),
            case .send(let french) = renderer.render(sport, for: MessageVariant(lang: "fr"), now: now)
        else {
            Issue.record("not rendered")
            return
        }
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != french)
        #expect(HMSMessage(members: first.members, validateOnly: true) != first)
    }
}
