import Crypto
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldRuntime
import HeraldStore
import HeraldTestSupport
import HeraldWebhook
import HTTPTypes
import NIOCore
import Synchronization
import Testing

/// Signed webhooks (Standard Webhooks): every request a provider with `signing_secret` sends carries
/// `webhook-id`, `webhook-timestamp` and `webhook-signature`, checked here with the test's own HMAC.
@Suite struct WebhookSignatureTests {
    /// The secret of the Standard Webhooks reference test vector.
    static let first = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    /// A second, 32-byte secret.
    static let second = "whsec_" + Data((0..<32).map { UInt8($0 * 7 & 0xFF) }).base64EncodedString()

    /// A receiver that answers its first request with `status` and every later one `200`: a retry.
    static func failingFirst(with status: HTTPResponse.Status) -> WebhookReceiver.Behaviour {
        let answered = Mutex(0)
        return { _ in
            answered.withLock { count in
                count += 1
                return count == 1 ? status : .ok
            }
        }
    }

    @Test func signerMatchesTheStandardWebhooksTestVector() throws {
        let signer = WebhookSigner(secrets: [try WebhookSigningSecret(Self.first, key: "k")])
        let signature = signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: ByteBuffer(string: #"{"test": 2432232314}"#))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func aRetryCarriesTheSameIDAndAValidSignature() async throws {
        try await checkRetrySignatures(extraYAML: "")
    }

    @Test func aRetryCarriesTheSameIDWithTheStoreOnPostgreSQL() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        try await checkRetrySignatures(extraYAML: "server: {database: \"\(server.url(database: database))\"}\n")
    }

    /// Publishes to one webhook that fails the first attempt: both attempts must carry one id and verify.
    private func checkRetrySignatures(extraYAML: String) async throws {
        let yaml = extraYAML + """
            delivery: {retry_delay: 0.01, max_retry_delay: 0.05}
            providers:
              http: {kind: http, signing_secret: "\(Self.first)"}
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver(behaviour: Self.failingFirst(with: .serviceUnavailable)) { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/signed"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=hello").status == 204)
                let requests = try await receiver.waitFor(count: 2)
                #expect(requests.count == 2)
                let ids = requests.map { $0.headers[Self.idField] }
                #expect(ids[0] != nil)
                #expect(ids[0] == ids[1], "a retry is the same message")
                for request in requests {
                    #expect(Self.verifiedSignatures(of: request, secret: Self.first) == 1, "\(request.headers)")
                    #expect(Self.verifiedSignatures(of: request, secret: Self.second) == 0)
                }
            }
        }
    }

    @Test func aRawSendKeepsItsIDAcrossRetriesAndEachTokenHasItsOwn() async throws {
        let answers = Mutex<[String: Int]>([:])
        let yaml = """
            delivery: {retry_delay: 0.01, max_retry_delay: 0.05}
            providers:
              http: {kind: http, signing_secret: "\(Self.first)"}
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver(behaviour: { request in
                answers.withLock { counts in
                    counts[request.path, default: 0] += 1
                    return counts[request.path] == 1 ? .tooManyRequests : .ok
                }
            }) { receiver in
                let tokens = [receiver.url("/raw-a"), receiver.url("/raw-b")]
                let json = #"{"proto":"http","tokens":["\#(tokens[0])","\#(tokens[1])"],"payload":{"hello":"raw"}}"#
                let response = try await herald.request(.POST, "/send", json: json)
                #expect(response.status == 202, "\(response.body)")
                let requests = try await receiver.waitFor(count: 4)
                #expect(requests.allSatisfy { Self.verifiedSignatures(of: $0, secret: Self.first) == 1 })
                let byPath = Dictionary(grouping: requests, by: \.path).mapValues { Set($0.compactMap { $0.headers[Self.idField] }) }
                #expect(byPath["/raw-a"]?.count == 1, "both attempts of one token share an id")
                #expect(byPath["/raw-b"]?.count == 1)
                #expect(byPath["/raw-a"] != byPath["/raw-b"], "two tokens are two deliveries")
            }
        }
    }

    @Test func aDeliveryQueuedBeforePublishIDsExistedKeepsOneIDAcrossRetries() async throws {
        let yaml = """
            delivery: {retry_delay: 0.01, max_retry_delay: 0.05}
            providers:
              http: {kind: http, signing_secret: "\(Self.first)"}
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver(behaviour: Self.failingFirst(with: .internalServerError)) { receiver in
                // As an older Herald stored it: content without a publish id.
                let now = Int64(Date().timeIntervalSince1970)
                let legacy = QueuedDelivery(
                    recipient: .token(proto: "http", token: receiver.url("/legacy")), statisticsEvent: nil,
                    notification: .prepared(PreparedPayload(body: #"{"old":true}"#)), silent: false, badge: nil, attempts: 0,
                    dueAt: now * 1000, publishedAt: now, lastReason: nil)
                try await herald.application.store.scheduleRetries([legacy])
                let requests = try await receiver.waitFor(count: 2)
                #expect(requests[0].headers[Self.idField] != nil)
                #expect(requests[0].headers[Self.idField] == requests[1].headers[Self.idField])
                #expect(requests.allSatisfy { Self.verifiedSignatures(of: $0, secret: Self.first) == 1 })
            }
        }
    }

    @Test func aReplayedDeadLetterKeepsItsID() async throws {
        let healthy = Mutex(false)
        let yaml = """
            delivery: {max_attempts: 1}
            providers:
              http: {kind: http, signing_secret: "\(Self.first)"}
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver(behaviour: { _ in healthy.withLock { $0 } ? .ok : .serviceUnavailable }) { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/replayed"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=hello").status == 204)
                try await eventually { try await herald.application.store.counts().deadLetters == 1 }
                healthy.withLock { $0 = true }
                let replay = try await herald.request(.POST, "/dead-letters/replay", form: "all=true")
                #expect(replay.status == 200, "\(replay.body)")
                let requests = try await receiver.waitFor(count: 2)
                #expect(requests[0].headers[Self.idField] != nil)
                #expect(requests[0].headers[Self.idField] == requests[1].headers[Self.idField], "a replay resends the same message")
                #expect(requests.allSatisfy { Self.verifiedSignatures(of: $0, secret: Self.first) == 1 })
            }
        }
    }

    @Test func everySecretSignsSoAReceiverCanRotate() async throws {
        let yaml = """
            providers:
              http: {kind: http, signing_secret: ["\(Self.first)", "\(Self.second)"]}
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/rotating"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=hello").status == 204)
                let request = try #require(try await receiver.waitFor(count: 1).first)
                let signatures = try #require(request.headers[Self.signatureField]).split(separator: " ")
                #expect(signatures.count == 2)
                #expect(Self.verifiedSignatures(of: request, secret: Self.first) == 1)
                #expect(Self.verifiedSignatures(of: request, secret: Self.second) == 1)
            }
        }
    }

    @Test func eachDeliveryHasItsOwnID() async throws {
        let yaml = """
            providers:
              http: {kind: http, signing_secret: "\(Self.first)"}
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver { receiver in
                for path in ["/a", "/b"] {
                    let id = try await Fixtures.register(herald, url: receiver.url(path))
                    #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                }
                #expect(try await herald.request(.POST, "/event/e", form: "msg=one").status == 204)
                try await receiver.waitFor(count: 2)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=one").status == 204)
                let requests = try await receiver.waitFor(count: 4)
                let ids = Set(requests.compactMap { $0.headers[Self.idField] })
                #expect(ids.count == 4, "two subscribers times two publishes")
                #expect(requests.allSatisfy { Self.verifiedSignatures(of: $0, secret: Self.first) == 1 })
            }
        }
    }

    @Test func withoutASecretNothingIsSigned() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/plain"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=hello").status == 204)
                let request = try #require(try await receiver.waitFor(count: 1).first)
                #expect(request.headers[Self.idField] == nil)
                #expect(request.headers[Self.timestampField] == nil)
                #expect(request.headers[Self.signatureField] == nil)
            }
        }
    }

    @Test(arguments: [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "providers.hooks.signing_secret"),
        ("whsec_not base64!", "providers.hooks.signing_secret"),
        ("whsec_", "providers.hooks.signing_secret"),
    ])
    func aMalformedSecretIsAConfigurationErrorNamingTheKey(secret: String, key: String) throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let file = (directory as NSString).appendingPathComponent("herald.yml")
        try "providers:\n  hooks: {kind: http, signing_secret: [\"\(Self.first)\", \"\(secret)\"]}\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let loader = ConfigurationLoader(kinds: HeraldApplication.standardKinds)
        let error = #expect(throws: ConfigurationError.self) {
            try loader.load(file: file, environment: [:], overrides: ConfigurationOverrides(port: nil, database: nil, logLevel: nil))
        }
        #expect(error?.key == key)
        #expect(error?.description.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == false, "the secret is not echoed")
    }

    @Test func severalSecretsMayComeFromTheEnvironment() throws {
        let loader = ConfigurationLoader(kinds: HeraldApplication.standardKinds)
        let loaded = try loader.load(
            file: nil, environment: ["HERALD_PROVIDERS_HTTP_SIGNING_SECRET": "\(Self.first) \(Self.second)"],
            overrides: ConfigurationOverrides(port: nil, database: nil, logLevel: nil))
        let options = try #require(loaded.configuration.providers["http"]?.options)
        #expect(try options.webhookSigner()?.secretCount == 2)
    }

    static let idField = HTTPField.Name("webhook-id")!
    static let timestampField = HTTPField.Name("webhook-timestamp")!
    static let signatureField = HTTPField.Name("webhook-signature")!

    /// How many of the request's `v1` signatures verify with `secret`, computed here from the received
    /// bytes as a receiver would, without Herald's signer.
    static func verifiedSignatures(of request: WebhookReceiver.Received, secret: String) -> Int {
        guard let id = request.headers[idField], let timestamp = request.headers[timestampField],
            let header = request.headers[signatureField], secret.hasPrefix("whsec_"),
            let key = Data(base64Encoded: String(secret.dropFirst(6)))
        else { return 0 }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).\(request.body)".utf8), using: SymmetricKey(data: key))
        let expected = "v1," + Data(mac).base64EncodedString()
        return header.split(separator: " ").filter { $0 == expected }.count
    }
}
