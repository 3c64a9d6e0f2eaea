import AsyncHTTPClient
import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// The UnifiedPush push server (issue 42) on its own listener, through real sockets: discovery,
/// RFC 8030 pushes with TTL, Topic and Urgency, JSON and SSE subscriptions with `since` and `poll`,
/// and topics bound to an application server's VAPID key.
@Suite struct UnifiedPushTests {
    static let yaml = "unifiedpush:\n  keepalive: 0.2\n"

    func base(_ herald: TestHerald) throws -> String {
        "http://127.0.0.1:\(try #require(herald.frontEndPorts["unifiedpush"]))"
    }

    func push(
        _ herald: TestHerald, _ topic: String, body: Data, headers: [(String, String)] = []
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: try base(herald) + "/" + topic)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: Array(body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), response.headers, text)
    }

    func get(_ herald: TestHerald, _ path: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: try base(herald) + path), timeout: .seconds(30))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func pushesReachSubscribersAndAreKeptUntilTheirTTL() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let discovery = try await get(herald, "/upAbc123?up=1")
            #expect(discovery.status == 200)
            #expect(discovery.body == #"{"unifiedpush":{"version":1}}"#)
            #expect(try await push(herald, "upNobody", body: Data("x".utf8)).status == 404, "nobody subscribed: the app server drops it")

            let stream = try await EventStreamClient.connect(try base(herald) + "/upAbc123/json", headers: [])
            try await stream.waitFor(#""event":"open""#)
            let first = try await push(herald, "upAbc123", body: Data("hello".utf8), headers: [("TTL", "60"), ("Urgency", "high")])
            #expect(first.status == 201)
            #expect(first.headers.first(name: "TTL") == "60")
            #expect(first.headers.first(name: "Location")?.hasPrefix(try base(herald) + "/upAbc123/json") == true)
            try await stream.waitFor(#""message":"hello""#)
            let binary = try await push(herald, "upAbc123", body: Data([0xFF, 0x00, 0x41]))
            #expect(binary.status == 201)
            #expect(binary.headers.first(name: "TTL") == "604800", "max_ttl when none is asked for")
            try await stream.waitFor(#""encoding":"base64""#)
            let live = Self.objects(stream.received).filter { $0["event"] as? String == "message" }
            #expect(live.map { $0["message"] as? String } == ["hello", Data([0xFF, 0x00, 0x41]).base64EncodedString()])
            #expect(live.first?["urgency"] as? String == "high")
            #expect(live.first?["topic"] as? String == "upAbc123")
            let firstID = try #require(live.first?["id"] as? String)
            #expect(Int(firstID) == nil, "never all digits")

            // TTL 0: to the subscriber connected now, kept nowhere.
            #expect(try await push(herald, "upAbc123", body: Data("now-only".utf8), headers: [("TTL", "0")]).status == 201)
            try await stream.waitFor("now-only")
            try await stream.waitFor(#""event":"keepalive""#)
            stream.close()

            let polled = try await get(herald, "/upAbc123/json?poll=1&since=all")
            #expect(Self.objects(polled.body).compactMap { $0["message"] as? String }.count == 2, "\(polled.body)")
            #expect(!polled.body.contains("now-only"))
            let after = try await get(herald, "/upAbc123/json?poll=1&since=\(firstID)")
            #expect(Self.objects(after.body).count == 1)
            #expect(Self.objects(after.body).first?["encoding"] as? String == "base64")

            // Topic: a pending message of the same topic is replaced.
            for text in ["old", "new"] {
                #expect(try await push(herald, "upAbc123", body: Data(text.utf8), headers: [("Topic", "score")]).status == 201)
            }
            let replaced = try await get(herald, "/upAbc123/sse?poll=1&since=all")
            #expect(replaced.body.contains("\"new\""))
            #expect(!replaced.body.contains("\"old\""))
            #expect(replaced.body.contains("id: "), "SSE frames carry the message id")

            #expect(try await push(herald, "upAbc123", body: Data(count: 4097)).status == 413)
            #expect(try await push(herald, "upAbc123", body: Data()).status == 400)
            #expect(try await push(herald, "upAbc123", body: Data("x".utf8), headers: [("TTL", "soon")]).status == 400)
            #expect(try await get(herald, "/bad%20topic/json?poll=1").status == 400)
        }
    }

    @Test func aTopicBoundToAVAPIDKeyTakesItsPushesOnly() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let key = P256.Signing.PrivateKey()
            let other = P256.Signing.PrivateKey()
            let publicKey = Base64URL.encode(key.publicKey.x963Representation)
            let subscribed = try await get(herald, "/upVapid1/json?poll=1&vapid=\(publicKey)")
            #expect(subscribed.status == 200)
            let audience = try base(herald)
            #expect(try await push(herald, "upVapid1", body: Data("x".utf8)).status == 401)
            let forged = Self.vapid(signedBy: other, claiming: key, audience: audience)
            #expect(try await push(herald, "upVapid1", body: Data("x".utf8), headers: [("Authorization", forged)]).status == 401)
            let elsewhere = Self.vapid(signedBy: key, claiming: key, audience: "https://push.example.org")
            #expect(try await push(herald, "upVapid1", body: Data("x".utf8), headers: [("Authorization", elsewhere)]).status == 401)
            let valid = Self.vapid(signedBy: key, claiming: key, audience: audience)
            #expect(try await push(herald, "upVapid1", body: Data("signed".utf8), headers: [("Authorization", valid)]).status == 201)
            #expect(try await get(herald, "/upVapid1/json?poll=1&since=all").body.contains("signed"))
        }
    }

    @Test func aWebSocketSubscriberGetsTheEventsAsTextMessages() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let port = try #require(herald.frontEndPorts["unifiedpush"])
            let received = Mutex<[String]>([])
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/upSocket1/ws", logger: Logger(label: "test.ws")) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    guard case .text(let text) = message else { continue }
                    received.withLock { $0.append(text) }
                    if text.contains(#""event":"open""#) {
                        // Subscribed: now the push has a topic to go to.
                        let answer = try await push(herald, "upSocket1", body: Data("over-ws".utf8))
                        #expect(answer.status == 201)
                    }
                    if text.contains("over-ws") { return }
                }
            }
            let events = received.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(events.map { $0["event"] as? String } == ["open", "message"])
            #expect(events.last?["message"] as? String == "over-ws")
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A real RFC 8030/8291/8292 application server: pywebpush (PyPI, installed once into a cached
    /// virtual environment by `scripts/webpush-appserver`, driven by `scripts/webpush_appserver.py`)
    /// encrypts with aes128gcm and signs with VAPID as it would for any push service; the live
    /// subscriber gets exactly the bytes it sent and decrypts them with http_ece as a user agent
    /// would. A push signed with another application server's key is refused.
    @Test func pywebpushEncryptsAndSignsAndTheSubscriberGetsExactlyItsBytes() async throws {
        let python = try await MatrixSynapseTests.output(of: [Self.repository.appendingPathComponent("scripts/webpush-appserver").path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let script = Self.repository.appendingPathComponent("scripts/webpush_appserver.py").path
        func appServer(_ arguments: [String]) async throws -> [String: Any] {
            try MatrixSynapseTests.object(try await MatrixSynapseTests.output(of: [python, script] + arguments))
        }
        let keys = try await appServer(["keys"])
        let other = try await appServer(["keys"])
        let directory = TestHerald.makeTemporaryDirectory()
        var pemFiles: [String] = []
        for (name, generated) in [("vapid.pem", keys), ("other.pem", other)] {
            let file = directory + "/" + name
            try #require(generated["vapid_private_pem"] as? String).write(toFile: file, atomically: true, encoding: .utf8)
            pemFiles.append(file)
        }
        let p256dh = try #require(keys["p256dh"] as? String)
        let auth = try #require(keys["auth"] as? String)
        let receiverPrivate = try #require(keys["receiver_private"] as? String)
        let vapidPublic = try #require(keys["vapid_public"] as? String)
        #expect(Base64URL.decode(vapidPublic)?.count == 65)

        try await withHerald(yaml: Self.yaml) { herald in
            let endpoint = try base(herald) + "/upPywebpush1"
            func webpush(signedWith pemFile: String, _ text: String) async throws -> [String: Any] {
                try await appServer([
                    "push", "--endpoint", endpoint, "--p256dh", p256dh, "--auth", auth, "--vapid-private-pem-file", pemFile,
                    "--sub", "mailto:ops@example.org", "--data", text, "--ttl", "60",
                ])
            }
            let stream = try await EventStreamClient.connect(endpoint + "/json?vapid=\(vapidPublic)", headers: [])
            #expect(stream.status == 200)
            try await stream.waitFor(#""event":"open""#)

            let plaintext = "Grüße from pywebpush \(UUID().uuidString)"
            let sent = try await webpush(signedWith: pemFiles[0], plaintext)
            #expect(sent["status"] as? Int == 201, "\(sent)")
            #expect((sent["headers"] as? [String: String])?["TTL"] == "60")
            let sentText = try #require(sent["sent_base64"] as? String)
            let sentBytes = try #require(Data(base64Encoded: sentText))
            #expect(sentBytes.count > 86 + 16, "an aes128gcm header (salt, rs, the sender's key) and a tagged record")

            // Whole lines only: a message half received is no object yet.
            try await eventually { Self.objects(stream.received).contains { $0["event"] as? String == "message" } }
            let live = Self.objects(stream.received).filter { $0["event"] as? String == "message" }
            #expect(live.count == 1)
            let message = try #require(live.first)
            #expect(message["encoding"] as? String == "base64", "an encrypted body is not UTF-8")
            let body = try #require(message["message"] as? String)
            #expect(Data(base64Encoded: body) == sentBytes, "the subscriber gets the bytes pywebpush sent, untouched")
            let opened = try await appServer(["decrypt", "--receiver-private", receiverPrivate, "--auth", auth, "--body-base64", body])
            #expect(opened["plaintext"] as? String == plaintext)

            // Signed with another application server's key: pywebpush's answer is 401, and nothing is kept.
            let forged = try await webpush(signedWith: pemFiles[1], "forged")
            #expect(forged["status"] as? Int == 401, "\(forged)")
            stream.close()
            let polled = try await get(herald, "/upPywebpush1/json?poll=1&since=all")
            #expect(Self.objects(polled.body).compactMap { $0["message"] as? String } == [body], "\(polled.body)")
        }
    }

    @Test func pushesPastATopicsRateAreRefusedWithRetryAfter() async throws {
        try await withHerald(yaml: "unifiedpush:\n  rate: {rate: 0.001, burst: 1}\n") { herald in
            for topic in ["upRate1", "upRate2"] { #expect(try await get(herald, "/\(topic)/json?poll=1").status == 200) }
            #expect(try await push(herald, "upRate1", body: Data("one".utf8)).status == 201)
            let refused = try await push(herald, "upRate1", body: Data("two".utf8))
            #expect(refused.status == 429)
            #expect(refused.headers.first(name: "Retry-After") != nil)
            #expect(try await push(herald, "upRate2", body: Data("other".utf8)).status == 201, "a bucket per topic")
        }
    }

    @Test func aPushAcceptedByOnePostgreSQLNodeReachesASubscriberOfAnother() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let yaml = "server:\n  database: \(server.url(database: database))\n" + Self.yaml
        try await withHerald(yaml: yaml) { first in
            try await withHerald(yaml: yaml) { second in
                let stream = try await EventStreamClient.connect(try base(first) + "/upNodes1/json", headers: [])
                try await stream.waitFor(#""event":"open""#)
                #expect(try await push(second, "upNodes1", body: Data("from-the-other-node".utf8)).status == 201)
                try await stream.waitFor("from-the-other-node")
                stream.close()
            }
        }
    }

    /// `vapid t=<ES256 JWT>, k=<key>` as an RFC 8292 app server (pywebpush) sends it.
    static func vapid(signedBy signer: P256.Signing.PrivateKey, claiming key: P256.Signing.PrivateKey, audience: String) -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let expiry = Int(Date().timeIntervalSince1970) + 3_600
        let claims = Base64URL.encode(Array(#"{"aud":"\#(audience)","exp":\#(expiry),"sub":"mailto:ops@example.org"}"#.utf8))
        let input = header + "." + claims
        let signature = try! signer.signature(for: Array(input.utf8)).rawRepresentation
        return "vapid t=\(input).\(Base64URL.encode(signature)), k=\(Base64URL.encode(key.publicKey.x963Representation))"
    }
}
