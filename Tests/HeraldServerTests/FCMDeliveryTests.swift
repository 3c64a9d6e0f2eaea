import Foundation
import HeraldHTTP2
import HeraldSimulators
import HeraldTestSupport
import Logging
import Testing

/// FCM end to end: Android subscribers registered through the pushd API, an event published, the simulated
/// FCM service receiving the data message, dead tokens unregistered.
@Suite struct FCMDeliveryTests {
    static let token = String(repeating: "a", count: 40) + ":APA91b"

    /// Runs `body` against a Herald whose `gcm` (FCM) provider speaks HTTP/2 through `engine`.
    func withFCM(engine: HTTP2Engine, _ body: (TestHerald, FCMSimulator) async throws -> Void) async throws {
        let bed = try await FCMTestBed.start(extraProviderOptions: ["http2_engine: \(engine)"])
        let simulator = bed.simulator
        let yaml = """
            delivery:
              retry_delay: 0.01
              max_retry_delay: 0.05
            providers:
            \(bed.providerYAML)
            """
        do {
            try await withHerald(yaml: yaml) { herald in try await body(herald, simulator) }
            await simulator.stop()
        } catch {
            await simulator.stop()
            throw error
        }
    }

    func register(_ herald: TestHerald, token: String, extra: String = "") async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", form: "proto=gcm&token=\(token)\(extra)")
        #expect(response.status == 201, "\(response.body)")
        return try #require((try Fixtures.json(response.body) as? [String: Any])?["id"] as? String)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func eventsArriveAsDataMessagesAndDeadTokensAreUnregistered(engine: HTTP2Engine) async throws {
        try await withFCM(engine: engine) { herald, simulator in
            let live = try await register(herald, token: Self.token + "live", extra: "&lang=fr")
            let dead = try await register(herald, token: Self.token + "dead")
            for id in [live, dead] {
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/match").status == 201)
            }
            simulator.unregister(token: Self.token + "dead")
            simulator.injectNext([.unavailable(retryAfter: 0)])
            #expect(try await herald.request(.POST, "/event/match", form: "title=Goal&title.fr=But&msg=2-1&data.minute=42&ttl=60").status == 204)
            try await eventually { simulator.acceptedCount == 1 }
            let message = try #require(simulator.accepted().first)
            #expect(message.token == Self.token + "live")
            let object = try #require(try Fixtures.json(message.body) as? [String: Any])
            let payload = try #require(object["message"] as? [String: Any])
            let data = try #require(payload["data"] as? [String: String])
            #expect(data["title"] == "But")
            #expect(data["message"] == "2-1")
            #expect(data["minute"] == "42")
            #expect((payload["android"] as? [String: Any])?["ttl"] as? String == "60s")
            #expect(simulator.tokenExchangeCount == 1, "one access token served every send")

            try await eventually { try await herald.request(.GET, "/subscriber/\(dead)").status == 404 }
            let feedback = try #require(try Fixtures.json(try await herald.request(.GET, "/feedback").body) as? [String: Any])
            let entries = try #require(feedback["entries"] as? [[String: Any]])
            #expect(entries.contains { $0["subscriber"] as? String == dead && $0["reason"] as? String == "UNREGISTERED" && $0["action"] as? String == "unregistered" })
            #expect(try await herald.request(.GET, "/subscriber/\(live)").status == 200)
        }
    }
}
