import Foundation
import HeraldTestSupport
import Testing

/// Live Activity pushes (issue 41) against the APNs simulator: from a pushd publish, a raw send and
/// gorush's drop-in, with `apns-push-type: liveactivity` and the `.push-type.liveactivity` topic.
@Suite struct LiveActivityTests {
    static let extra = "delivery:\n  max_attempts: 1\ncompat:\n  gorush: {ios_provider: apns}\n"

    func register(_ herald: TestHerald, token: String) async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=\(token)")
        #expect(response.status == 201, "\(response.body)")
        return try #require((try Fixtures.json(response.body) as? [String: Any])?["id"] as? String)
    }

    func aps(_ body: String) throws -> [String: Any] {
        let object = try #require(try Fixtures.json(body) as? [String: Any])
        return try #require(object["aps"] as? [String: Any])
    }

    @Test func aPublishARawSendAndGorushSendLiveActivityUpdates() async throws {
        try await withAPNsHerald(extra: Self.extra) { herald, bed in
            let before = Int(Date().timeIntervalSince1970)
            let id = try await register(herald, token: APNsTestBed.token(1))
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/match.42").status == 201)
            let publish = #"{"msg":"Goal!","liveActivity":{"event":"update","contentState":{"home":1,"away":0},"staleDate":1900000000}}"#
            #expect(try await herald.request(.POST, "/event/match.42", json: publish).status == 204)
            try await eventually { bed.simulator.acceptedCount == 1 }
            let published = try #require(bed.simulator.accepted().first)
            #expect(published.header("apns-push-type") == "liveactivity")
            #expect(published.header("apns-topic") == "com.example.app.push-type.liveactivity")
            #expect(published.header("apns-priority") == "10")
            let fromPublish = try aps(published.body)
            #expect(fromPublish["event"] as? String == "update")
            #expect(fromPublish["content-state"] as? [String: Int] == ["home": 1, "away": 0])
            #expect(fromPublish["stale-date"] as? Int == 1_900_000_000)
            #expect((fromPublish["timestamp"] as? Int).map { $0 >= before } == true, "the publish time")
            #expect(fromPublish["alert"] as? [String: String] == ["body": "Goal!"])

            let raw = #"{"proto":"apns","tokens":["\#(APNsTestBed.token(2))"],"payload":{"aps":{"event":"end","content-state":{"home":2,"away":1},"dismissal-date":1900000000}}}"#
            #expect(try await herald.request(.POST, "/send", json: raw).status == 202)
            try await eventually { bed.simulator.acceptedCount == 2 }
            let sent = try #require(bed.simulator.accepted().first { $0.token.lowercased() == APNsTestBed.token(2) })
            #expect(sent.header("apns-push-type") == "liveactivity")
            #expect(sent.header("apns-topic") == "com.example.app.push-type.liveactivity")
            let fromSend = try aps(sent.body)
            #expect(fromSend["event"] as? String == "end")
            #expect((fromSend["timestamp"] as? Int).map { $0 >= before } == true, "stamped when the send was accepted")

            let gorush = #"""
                {"notifications":[{"tokens":["\#(APNsTestBed.token(3))"],"platform":1,"event":"update","timestamp":1700000000,
                 "content-state":{"home":3},"stale-date":1900000000,"relevance-score":50,"priority":"normal"}]}
                """#
            #expect(try await herald.request(.POST, "/api/push", json: gorush).status == 200)
            try await eventually { bed.simulator.acceptedCount == 3 }
            let fromGorush = try #require(bed.simulator.accepted().first { $0.token.lowercased() == APNsTestBed.token(3) })
            #expect(fromGorush.header("apns-push-type") == "liveactivity")
            #expect(fromGorush.header("apns-priority") == "5", "the sender asked for normal")
            let gorushAPS = try aps(fromGorush.body)
            #expect(gorushAPS["timestamp"] as? Int == 1_700_000_000, "the sender's own timestamp is kept")
            #expect(gorushAPS["content-state"] as? [String: Int] == ["home": 3])
        }
    }

    @Test func aCertificateProviderRefusesThemNamingWhy() async throws {
        try await withAPNsHerald(certificateAuthentication: true, extra: Self.extra) { herald, bed in
            let id = try await register(herald, token: APNsTestBed.token(4))
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/match").status == 201)
            let publish = #"{"liveActivity":{"event":"update","contentState":{"home":1}}}"#
            #expect(try await herald.request(.POST, "/event/match", json: publish).status == 204)
            try await eventually {
                let letters = try Fixtures.json(try await herald.request(.GET, "/dead-letters").body) as? [String: Any]
                return (letters?["entries"] as? [[String: Any]])?.first?["reason"] as? String == "LiveActivityNeedsTokenAuthentication"
            }
            #expect(bed.simulator.requestCount == 0, "nothing was sent")
        }
    }
}
