import Collections
import HeraldAPNs
import HeraldCore
import NIOCore
import Testing

/// The pushd → APNs mapping of pushd-api.md §10.1.
@Suite struct APNsPayloadRendererTests {
    let renderer = APNsPayloadRenderer()

    func event(_ pairs: KeyValuePairs<String, String>) throws -> PublishedEvent {
        try PayloadCompiler.compile(.object(pairs.map { ($0.key, BodyValue.string($0.value)) }), event: "e")
    }

    func render(_ event: PublishedEvent, lang: String? = nil, silent: Bool = false, badge: Int? = nil, with renderer: APNsPayloadRenderer? = nil) throws -> APNsMessage {
        guard case .send(let message) = (renderer ?? self.renderer).render(event, for: MessageVariant(lang: lang, silent: silent, badge: badge), now: 1000) else {
            Issue.record("not sent")
            throw CancellationError()
        }
        return message
    }

    @Test func specExampleInFrench() throws {
        let published = try event([
            "msg": "${var.name} sent a video", "msg.fr": "${var.name} a envoyé une vidéo", "sound": "newVideo.mp3",
            "data.user_id": "fkwhpd", "var.name": "John",
        ])
        let message = try render(published, lang: "fr", badge: 4)
        #expect(String(buffer: message.body) == #"{"aps":{"alert":"John a envoyé une vidéo","badge":4,"sound":"newVideo.mp3"},"user_id":"fkwhpd"}"#)
        #expect(message.pushType == .alert)
        #expect(message.priority == 10)
        #expect(message.expiration == nil)
        #expect(message.collapseID == nil)
    }

    @Test func silentGetsNoAlertNorSoundButKeepsBadgeAndData() throws {
        let message = try render(try event(["msg": "x", "sound": "s", "data.k": "v"]), silent: true, badge: 4)
        #expect(String(buffer: message.body) == #"{"aps":{"badge":4},"k":"v"}"#)
        #expect(message.pushType == .alert)
        #expect(message.priority == 10)
    }

    @Test func pushTypeAndPriorityFollowTheTable() throws {
        let background = try render(try event(["data.k": "v", "contentAvailable": "1"]))
        #expect(String(buffer: background.body) == #"{"aps":{"content-available":1},"k":"v"}"#)
        #expect(background.pushType == .background)
        #expect(background.priority == 5)
        let dataOnly = try render(try event(["data.k": "v"]))
        #expect(dataOnly.pushType == .alert)
        #expect(dataOnly.priority == 5)
    }

    @Test func heraldKeysBecomeHeaders() throws {
        let message = try render(try event(["msg": "x", "ttl": "60", "priority": "normal", "collapseKey": "score", "pushType": "voip"]))
        #expect(message.expiration == 1060)
        #expect(message.priority == 5)
        #expect(message.collapseID == "score")
        #expect(message.pushType == .voip)
        #expect(message.pushType.topicSuffix == ".voip")
        let expiring = try render(try event(["msg": "x", "ttl": "60", "expiration": "5000"]))
        #expect(expiring.expiration == 5000, "expiration wins over ttl")
    }

    @Test func providerOptions() throws {
        let options = APNsPayloadRenderer(payloadFilter: ["keep"], defaultCategory: "cat", defaultContentAvailable: true, alertTitle: true)
        let message = try render(try event(["title": "T", "msg": "M", "data.keep": "1", "data.drop": "2", "data.aps": "x"]), with: options)
        #expect(String(buffer: message.body) == #"{"aps":{"alert":{"title":"T","body":"M"},"category":"cat","content-available":1},"keep":"1"}"#)
        let plain = try render(try event(["msg": "M", "data.aps": "x"]))
        #expect(String(buffer: plain.body) == #"{"aps":{"alert":"M"}}"#, "a data key named aps is never sent")
    }

    @Test func oversizedPayloadIsAMessageFailure() throws {
        let big = String(repeating: "x", count: 4100)
        let result = renderer.render(try event(["msg": big]), for: MessageVariant(), now: 0)
        guard case .fail(let outcome) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        #expect(outcome.reason == "PayloadTooLarge")
        let voip = renderer.render(try event(["msg": String(repeating: "x", count: 4500), "pushType": "voip"]), for: MessageVariant(), now: 0)
        guard case .send = voip else {
            Issue.record("VoIP allows 5120 bytes")
            return
        }
    }
}

/// Live Activity updates (issue 41): Apple's `aps` keys, `liveactivity`, priority 10 unless `normal`.
@Suite struct APNsLiveActivityRenderingTests {
    func render(_ json: String, silent: Bool = false) throws -> APNsMessage {
        let event = try PayloadCompiler.compile(try JSONBodyParser.parse(Array(json.utf8)), event: "score")
        guard case .send(let message) = APNsPayloadRenderer().render(event, for: MessageVariant(silent: silent), now: 1_000) else {
            Issue.record("not sent")
            throw CancellationError()
        }
        return message
    }

    @Test func anUpdateWithAnAlertAndData() throws {
        let message = try render(#"""
            {"title":"Goal","msg":"2-1","data.match":"42","liveActivity":{"event":"update","contentState":{"home":2,"away":1},
             "timestamp":1700000000,"staleDate":1700003600,"dismissalDate":1700007200,"relevanceScore":75}}
            """#)
        #expect(String(buffer: message.body) == #"""
            {"aps":{"timestamp":1700000000,"event":"update","content-state":{"home":2,"away":1},"stale-date":1700003600,"dismissal-date":1700007200,"relevance-score":75.0,"alert":{"title":"Goal","body":"2-1"}},"match":"42"}
            """#)
        #expect(message.pushType == .liveactivity)
        #expect(message.priority == 10)
    }

    @Test func aStartAtNormalPriorityAndASilentEnd() throws {
        let start = try render(#"""
            {"priority":"normal","liveActivity":{"event":"start","contentState":{"home":0},"attributesType":"Match","attributes":{"id":"A"},"inputPushToken":1}}
            """#)
        #expect(String(buffer: start.body) == #"{"aps":{"timestamp":1000,"event":"start","content-state":{"home":0},"attributes-type":"Match","attributes":{"id":"A"},"input-push-token":1}}"#)
        #expect(start.priority == 5)
        let end = try render(#"{"msg":"Full time","liveActivity":{"event":"end","timestamp":5}}"#, silent: true)
        #expect(String(buffer: end.body) == #"{"aps":{"timestamp":5,"event":"end"}}"#, "a silent subscription gets no alert")
    }
}
