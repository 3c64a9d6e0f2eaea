import Crypto
import HeraldCore
import HeraldWebPush
import Testing

/// The mapping of pushd-api.md §10.4: plaintext JSON per variant, `TTL`, `Urgency`, `Topic`.
@Suite struct WebPushRendererTests {
    let renderer = WebPushRenderer()
    let now: Int64 = 1_700_000_000

    func render(_ event: PublishedEvent, lang: String? = nil, silent: Bool = false) throws -> WebPushMessage {
        guard case .send(let message) = renderer.render(event, for: MessageVariant(lang: lang, silent: silent), now: now) else {
            Issue.record("not rendered")
            throw CancellationError()
        }
        return message
    }

    @Test func plaintextIsLocalizedForTheVariant() throws {
        #expect(try render(sampleEvent()).plaintextString == #"{"event":"sport","title":"Goal","message":"1-0","data":{"match":"42"}}"#)
        #expect(try render(sampleEvent(), lang: "fr").plaintextString == #"{"event":"sport","title":"But","message":"1 à 0","data":{"match":"42"}}"#)
        #expect(try render(sampleEvent(), lang: "fr_CA").plaintextString.contains(#""title":"But""#))
        #expect(try render(sampleEvent(), lang: "de").plaintextString.contains(#""title":"Goal""#))
    }

    @Test func silentVariantsAndMissingTranslationsLeaveTheTextOut() throws {
        #expect(try render(sampleEvent(), silent: true).plaintextString == #"{"event":"sport","data":{"match":"42"}}"#)
        let dataOnly = PublishedEvent(event: "sync", data: ["a": "1", "b": "x\"y"])
        #expect(try render(dataOnly).plaintextString == #"{"event":"sync","data":{"a":"1","b":"x\"y"}}"#)
        let onlyFrench = PublishedEvent(event: "e", title: LocalizedText(["fr": "Bonjour"]))
        #expect(try render(onlyFrench).plaintextString == #"{"event":"e","data":{}}"#)
    }

    @Test func ttlComesFromExpirationThenTTLThenTheDefault() throws {
        #expect(try render(sampleEvent()).ttl == 86_400)
        #expect(WebPushRenderer(defaultTTL: 60).render(sampleEvent(), for: MessageVariant(), now: now).message?.ttl == 60)
        #expect(try render(sampleEvent(ttl: 0)).ttl == 0)
        #expect(try render(sampleEvent(ttl: 3600)).ttl == 3600)
        var expiring = sampleEvent(ttl: 3600)
        expiring.expiration = now + 120
        #expect(try render(expiring).ttl == 120)
        expiring.expiration = now - 5
        #expect(try render(expiring).ttl == 0)
        #expect(try render(sampleEvent(ttl: Int.max)).ttl == Int(Int32.max))
    }

    @Test func urgencyFollowsPriorityAndSilence() throws {
        #expect(try render(sampleEvent()).urgency == .normal)
        #expect(try render(sampleEvent(), silent: true).urgency == .low)
        #expect(try render(sampleEvent(priority: .high)).urgency == .high)
        #expect(try render(sampleEvent(priority: .high), silent: true).urgency == .high)
        #expect(try render(sampleEvent(priority: .normal), silent: true).urgency == .normal)
    }

    @Test func topicIsTheCollapseKeyWhenValidElseADigestOfIt() throws {
        #expect(try render(sampleEvent()).topic == nil)
        #expect(try render(sampleEvent(collapseKey: "")).topic == nil)
        #expect(try render(sampleEvent(collapseKey: "score-update_1")).topic == "score-update_1")
        let long = String(repeating: "k", count: 33)
        let derived = try #require(try render(sampleEvent(collapseKey: long)).topic)
        #expect(derived == String(Base64URL.encode(SHA256.hash(data: Array(long.utf8))).prefix(32)))
        #expect(WebPushTopic.isValid(derived))
        let spaced = try render(sampleEvent(collapseKey: "match 42: score")).topic
        let other = try render(sampleEvent(collapseKey: "match 43: score")).topic
        #expect(spaced != nil && spaced != other)
        #expect(spaced == WebPushTopic.make(collapseKey: "match 42: score"))
    }

    @Test func plaintextOverOneRecordIsAMessageFailure() throws {
        let overhead = try render(PublishedEvent(event: "big", data: ["k": ""])).plaintext.count
        #expect(overhead == #"{"event":"big","data":{"k":""}}"#.utf8.count)
        let fits = PublishedEvent(event: "big", data: ["k": String(repeating: "x", count: WebPushEncryption.maximumPlaintextLength - overhead)])
        #expect(try render(fits).plaintext.count == WebPushEncryption.maximumPlaintextLength)
        let tooLarge = PublishedEvent(event: "big", data: ["k": String(repeating: "x", count: WebPushEncryption.maximumPlaintextLength - overhead + 1)])
        guard case .fail(let outcome) = renderer.render(tooLarge, for: MessageVariant(), now: now) else {
            Issue.record("rendered a plaintext that cannot be encrypted in one record")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        #expect(outcome.reason == "PayloadTooLarge")
    }

    @Test func aPreparedPayloadIsSentAsItsBodyWithItsHeaders() throws {
        let payload = PreparedPayload(body: #"{"room_id":"!r"}"#, headers: ["ttl": "600", "urgency": "low", "topic": "room-A_1"])
        guard case .send(let message) = renderer.render(payload) else {
            Issue.record("not rendered")
            return
        }
        #expect(message.plaintextString == #"{"room_id":"!r"}"#)
        #expect(message.ttl == 600)
        #expect(message.urgency == .low)
        #expect(message.topic == "room-A_1")
        guard case .send(let hashed) = renderer.render(PreparedPayload(body: "{}", headers: ["topic": "!room:example.org"])) else {
            Issue.record("not rendered")
            return
        }
        #expect(hashed.topic == WebPushTopic.make(collapseKey: "!room:example.org"), "made a topic as a collapse key is")
        #expect(hashed.topic?.count == 32)
        guard case .send(let plain) = renderer.render(PreparedPayload(body: "{}")) else {
            Issue.record("not rendered")
            return
        }
        #expect(plain.ttl == renderer.defaultTTL)
        #expect(plain.urgency == .normal)
        #expect(plain.topic == nil)
    }

    @Test(arguments: [
        PreparedPayload(body: String(repeating: "x", count: WebPushEncryption.maximumPlaintextLength + 1)),
        PreparedPayload(body: "{}", headers: ["ttl": "-1"]), PreparedPayload(body: "{}", headers: ["urgency": "urgent"]),
    ])
    func aPreparedPayloadThatCannotBeSentFails(_ payload: PreparedPayload) {
        guard case .fail(let outcome) = renderer.render(payload) else {
            Issue.record("rendered")
            return
        }
        #expect(outcome.outcome == .messageFailure)
    }
}

extension RenderResult {
    /// The message, when sent.
    var message: Message? {
        if case .send(let message) = self { return message }
        return nil
    }

}
