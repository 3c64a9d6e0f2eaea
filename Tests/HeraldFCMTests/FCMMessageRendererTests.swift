import HeraldCore
import HeraldFCM
import Testing

/// pushd-api.md §10.2: a data message with the localized title and message, the payload's data, and the
/// collapse key, priority and TTL in `android`.
@Suite struct FCMMessageRendererTests {
    let renderer = FCMMessageRenderer()
    let now: Int64 = 1_700_000_000

    private func text(_ event: PublishedEvent, _ variant: MessageVariant = MessageVariant(), token: String = "T") throws -> String {
        guard case .send(let message) = renderer.render(event, for: variant, now: now) else {
            Issue.record("not rendered")
            return ""
        }
        return message.text(token: token)
    }

    private let sport = PublishedEvent(
        event: "sport",
        title: LocalizedText(["default": "Goal", "fr": "But"]),
        message: LocalizedText(["default": "1-0", "fr_CA": "1-0 pour Montréal"]),
        data: ["user_id": "42", "n": "7"])

    @Test func dataMessageWithTitleMessageAndCollapseKey() throws {
        #expect(try text(sport) == #"{"message":{"token":"T","data":{"title":"Goal","message":"1-0","user_id":"42","n":"7"},"android":{"collapse_key":"sport"}}}"#)
    }

    @Test(arguments: [
        ("fr", #""title":"But","message":"1-0""#),
        ("fr_BE", #""title":"But","message":"1-0""#),
        ("fr_CA", #""title":"But","message":"1-0 pour Montréal""#),
        ("de", #""title":"Goal","message":"1-0""#),
    ])
    func titleAndMessageFollowTheSubscribersLanguage(lang: String, expected: String) throws {
        #expect(try text(sport, MessageVariant(lang: lang)).contains(#""data":{\#(expected),"user_id""#))
    }

    @Test func silentSubscriptionsGetDataOnly() throws {
        #expect(try text(sport, MessageVariant(silent: true)) == #"{"message":{"token":"T","data":{"user_id":"42","n":"7"},"android":{"collapse_key":"sport"}}}"#)
    }

    @Test func silentWithoutDataSendsNothing() {
        let event = PublishedEvent(event: "sport", message: LocalizedText(["default": "hi"]))
        guard case .skip = renderer.render(event, for: MessageVariant(silent: true), now: now) else {
            Issue.record("a silent subscription with no data keys should be skipped")
            return
        }
    }

    @Test func dataKeysWinOverTitleAndReservedKeysAreDropped() throws {
        let event = PublishedEvent(
            event: "e", title: LocalizedText(["default": "t"]),
            data: ["title": "from data", "from": "x", "message_type": "x", "google.sent": "x", "gcm.n": "x", "k": "v"])
        #expect(try text(event) == #"{"message":{"token":"T","data":{"title":"from data","k":"v"},"android":{"collapse_key":"e"}}}"#)
    }

    @Test func extensionKeysSetAndroidAndThePlatformHeaders() throws {
        var event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        event.ttl = 600
        event.priority = .high
        event.collapseKey = "score"
        #expect(try text(event) == #"{"message":{"token":"T","data":{"message":"m"},"android":{"collapse_key":"score","priority":"high","ttl":"600s"},"apns":{"headers":{"apns-expiration":"1700000600","apns-collapse-id":"score"}},"webpush":{"headers":{"TTL":"600","Urgency":"high"}}}}"#)
    }

    @Test func expirationWinsOverTTLAndExpiredIsNotSent() throws {
        var event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        event.ttl = 600
        event.expiration = now + 30
        #expect(try text(event).contains(#""ttl":"30s""#))
        event.expiration = now
        guard case .fail(let outcome) = renderer.render(event, for: MessageVariant(), now: now) else {
            Issue.record("an expired notification must not be sent")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        #expect(outcome.reason == "Expired")
    }

    @Test func ttlIsCappedAtFourWeeks() throws {
        var event = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]))
        event.ttl = 10_000_000
        #expect(try text(event).contains(#""ttl":"2419200s""#))
    }

    @Test func testPushesHaveNoCollapseKey() throws {
        let event = PublishedEvent(event: "test", message: LocalizedText(["default": "Test"]), data: ["test": "ok"])
        #expect(try text(event) == #"{"message":{"token":"T","data":{"message":"Test","test":"ok"}}}"#)
    }

    @Test func dataOverFourKilobytesIsNotSent() throws {
        // Keys and values count: "k" + 4095 bytes is exactly the limit.
        let fits = PublishedEvent(event: "e", data: ["k": String(repeating: "x", count: 4095)])
        guard case .send = renderer.render(fits, for: MessageVariant(), now: now) else {
            Issue.record("4096 bytes of data fit")
            return
        }
        let tooBig = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]), data: ["k": String(repeating: "x", count: 4095)])
        guard case .fail(let outcome) = renderer.render(tooBig, for: MessageVariant(), now: now) else {
            Issue.record("over 4096 bytes must not be sent")
            return
        }
        #expect(outcome == DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
    }

    @Test func textIsEscapedAndTheTokenSplicedSafely() throws {
        let event = PublishedEvent(event: "e", message: LocalizedText(["default": "say \"hi\"\n\\"]))
        #expect(try text(event, token: #"a"b\c"#) == #"{"message":{"token":"a\"b\\c","data":{"message":"say \"hi\"\n\\"},"android":{"collapse_key":"e"}}}"#)
    }
}
