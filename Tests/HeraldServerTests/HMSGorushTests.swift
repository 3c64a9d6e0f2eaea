import Foundation
import HeraldSimulators
import HeraldTestSupport
import Logging
import Testing

/// Huawei Push Kit through Herald's front doors (issue 41): gorush's platform 3, a pushd publish
/// to an `hms` subscriber and a Matrix homeserver's notification, against the HMS simulator over TLS.
@Suite struct HMSGorushTests {
    static let clientID = "104567890"
    static let clientSecret = "2f6c0e8d4b1a9c7e5d3f1a2b4c6d8e0f"

    static func token(_ n: Int) -> String { "IQAAAACy0kYkAACgNdJ3zHm-hms-token-\(String(format: "%06d", n))-Rv3m2Sx8bE" }

    func withHMS<T>(_ body: (TestHerald, HMSSimulator) async throws -> T) async throws -> T {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = HMSSimulator.Configuration(clientID: Self.clientID, clientSecret: Self.clientSecret, certificateAuthority: authority)
        configuration.recordPayloads = true
        let simulator = HMSSimulator(configuration: configuration)
        _ = try await simulator.start()
        let yaml = """
            providers:
              huawei:
                kind: hms
                client_id: "\(Self.clientID)"
                client_secret: \(Self.clientSecret)
                endpoint: \(simulator.endpoint)
                token_endpoint: \(simulator.tokenEndpoint)
                ca_file: \(authority.caCertificateFile!)
            compat:
              gorush: {huawei_provider: huawei}
              matrix:
                apps:
                  im.example.huawei: {provider: huawei}
            delivery:
              max_attempts: 1
            """
        do {
            let result = try await withHerald(yaml: yaml) { try await body($0, simulator) }
            await simulator.stop()
            return result
        } catch {
            await simulator.stop()
            throw error
        }
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func gorushPlatformThreeAndAPushdPublishReachPushKit() async throws {
        try await withHMS { herald, simulator in
            let push = #"""
                {"notifications":[{"platform":3,"tokens":["\#(Self.token(1))","\#(Self.token(2))"],"title":"Hello","message":"Huawei!",
                 "huawei_data":"{\"k\":\"v\"}","priority":"high","huawei_ttl":"600s","bi_tag":"campaign"}]}
                """#
            let answer = try await herald.request(.POST, "/api/push", json: push)
            #expect(answer.status == 200, "\(answer.body)")
            #expect(try json(answer.body)["counts"] as? Int == 2)
            try await eventually { simulator.acceptedTokens().count == 2 }
            let sent = try #require(simulator.accepted().first)
            #expect(Set(sent.tokens) == [Self.token(1), Self.token(2)], "one request for both")
            let message = try #require(try json(sent.body)["message"] as? [String: Any])
            #expect(message["data"] as? String == #"{"k":"v"}"#)
            let android = try #require(message["android"] as? [String: Any])
            #expect(android["urgency"] as? String == "HIGH")
            #expect(android["ttl"] as? String == "600s")
            #expect(android["bi_tag"] as? String == "campaign")
            let notification = try #require(android["notification"] as? [String: Any])
            #expect(notification["title"] as? String == "Hello")
            #expect(notification["body"] as? String == "Huawei!")

            let registered = try await herald.request(.POST, "/subscribers", form: "proto=huawei&token=\(Self.token(3))&lang=fr")
            #expect(registered.status == 201, "\(registered.body)")
            let id = try #require(try json(registered.body)["id"] as? String)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news").status == 201)
            #expect(try await herald.request(.POST, "/event/news", form: "title=Info&msg=Hello&msg.fr=Bonjour&data.id=7").status == 204)
            try await eventually { simulator.acceptedTokens().contains(Self.token(3)) }
            let published = try #require(simulator.accepted().first { $0.tokens == [Self.token(3)] })
            let publishedMessage = try #require(try json(published.body)["message"] as? [String: Any])
            let publishedNotification = try #require((publishedMessage["android"] as? [String: Any])?["notification"] as? [String: Any])
            #expect(publishedNotification["body"] as? String == "Bonjour", "the subscriber's language")
            #expect((publishedNotification["click_action"] as? [String: Any])?["type"] as? Int == 3)
            #expect(publishedMessage["data"] as? String == #"{"id":"7"}"#)
        }
    }

    @Test func aMatrixAppCanSendThroughPushKit() async throws {
        try await withHMS { herald, simulator in
            let notify = #"""
                {"notification":{"event_id":"$e1","room_id":"!r:example.org","type":"m.room.message","sender":"@a:example.org",
                 "content":{"msgtype":"m.text","body":"hi"},"counts":{"unread":1},"prio":"low",
                 "devices":[{"app_id":"im.example.huawei","pushkey":"\#(Self.token(9))"}]}}
                """#
            let answer = try await herald.request(.POST, "/_matrix/push/v1/notify", json: notify)
            #expect(answer.status == 200)
            #expect(try json(answer.body)["rejected"] as? [String] == [])
            try await eventually { simulator.acceptedTokens() == [Self.token(9)] }
            let sent = try #require(simulator.accepted().first)
            let message = try #require(try json(sent.body)["message"] as? [String: Any])
            let text = try #require(message["data"] as? String)
            let data = try json(text)
            #expect(data["event_id"] as? String == "$e1")
            #expect(data["content_body"] as? String == "hi")
            #expect((message["android"] as? [String: Any])?["urgency"] as? String == "NORMAL", "prio: low")
        }
    }
}
