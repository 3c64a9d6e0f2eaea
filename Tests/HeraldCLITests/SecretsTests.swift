import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// No secret of a full configuration (Basic passwords, provider keys and secrets, tokens the services issue)
/// appears in the log at `trace` level or in any answer, even while every kind delivers and fails.
@Suite struct SecretsTests {
    static let password = "pw-7c1d0f3a9b8e"
    static let publisherPassword = "pub-55aa0c1e9d"
    static let signingSecret = "whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRoZS1sb2ctdGVzdA=="

    @Test func noSecretReachesTheLogOrAnAnswerAtTraceLevel() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let simulatedConfig = directory + "/simulated.yml"
        let simulate = try HeraldProcess.spawn(
            ["simulate", "--apns-port", "0", "--fcm-port", "0", "--web-push-port", "0", "--wns-port", "0", "--mpns-port", "0",
             "--gcm-legacy-port", "0", "--config-out", simulatedConfig, "--directory", directory + "/sim"],
            directory: directory)
        defer { simulate.signal(SIGTERM) }
        try await eventually(limit: .seconds(60)) {
            (try? String(contentsOfFile: simulatedConfig, encoding: .utf8))?.contains("kind: http") == true
        }
        // A signed webhook provider too: its signing secret must stay out of the log like the others.
        let providers = try String(contentsOfFile: simulatedConfig, encoding: .utf8).replacingOccurrences(
            of: "providers:\n", with: "providers:\n  signed-hooks: {kind: http, signing_secret: \(Self.signingSecret)}\n")
        let config = directory + "/herald.yml"
        try (providers + """
            log:
              level: trace
            server:
              access_log: true
              auth:
                ops: {password: \(Self.password), realms: [register, publish, listen, admin]}
                publisher: {password: \(Self.publisherPassword), realms: [publish]}
            compat:
              gorush: {ios_provider: apns, android_provider: gcm}
            """).write(toFile: config, atomically: true, encoding: .utf8)

        let port = try HeraldProcess.freePort()
        // `GET /status` is in a realm once users are configured, so the wait below authenticates.
        let herald = try HeraldProcess.spawn(["serve", "--port", "\(port)", "--config", config], directory: directory)
        defer { herald.signal(SIGTERM) }
        let base = "http://127.0.0.1:\(port)"
        var answers: [String] = []
        func call(_ method: HTTPMethod, _ path: String, form: String? = nil, json: String? = nil, user: String = "ops") async throws -> Int {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            let password = user == "ops" ? Self.password : user == "publisher" ? Self.publisherPassword : "wrong-password"
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: form))
            } else if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 22)
            answers.append(response.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + "\n" + String(buffer: body))
            return Int(response.status.code)
        }

        var ready = false
        for _ in 0..<600 where !ready {
            ready = (try? await call(.GET, "/status")) == 204
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "herald did not start: \(herald.log)")
        let simulated = directory + "/sim"
        let subscription = try String(contentsOfFile: simulated + "/webpush-subscription.json", encoding: .utf8)
        let wnsChannel = try String(contentsOfFile: simulated + "/wns-channel.txt", encoding: .utf8)
        let mpnsChannel = try String(contentsOfFile: simulated + "/mpns-channel.txt", encoding: .utf8)
        let apnsToken = String(repeating: "ab", count: 32)
        #expect(try await call(.POST, "/subscribers", form: "proto=apns&token=\(apnsToken)") == 201)
        #expect(try await call(.POST, "/subscribers", form: "proto=gcm&token=\(String(repeating: "f", count: 64))") == 201)
        #expect(try await call(.POST, "/subscribers", json: #"{"proto":"webpush","token":\#(subscription)}"#) == 201)
        #expect(try await call(.POST, "/subscribers", form: "proto=wns-toast&token=\(SimulateCommandTests.formEncoded(wnsChannel))") == 201)
        #expect(try await call(.POST, "/subscribers", form: "proto=mpns-toast&token=\(SimulateCommandTests.formEncoded(mpnsChannel))") == 201)
        #expect(try await call(.POST, "/subscribers", form: "proto=gcm-legacy&token=\(String(repeating: "e", count: 64))") == 201)
        #expect(try await call(.POST, "/subscribers", form: "proto=http&token=\(SimulateCommandTests.formEncoded("http://127.0.0.1:9/gone"))") == 201)
        #expect(try await call(.POST, "/subscribers", form: "proto=signed-hooks&token=\(SimulateCommandTests.formEncoded("http://127.0.0.1:9/signed"))") == 201)
        #expect(try await call(.POST, "/event/broadcast", form: "msg=Hello+secrets", user: "publisher") == 204)
        #expect(try await call(.POST, "/event/broadcast", form: "msg=x", user: "intruder") == 401)
        #expect(try await call(.POST, "/subscribers", form: "proto=apns&token=x", user: "publisher") == 403)
        #expect(try await call(
            .POST, "/api/push", json: #"{"notifications":[{"tokens":["\#(apnsToken)"],"platform":1,"message":"via gorush"}]}"#) == 200)
        do {
            try await eventually(limit: .seconds(60)) {
                simulate.log.contains("apns: 2 accepted of 2, fcm: 1 accepted of 1, webpush: 1 accepted of 1, wns: 1 accepted of 1")
            }
        } catch {
            Issue.record("not every simulator got its notification: \(simulate.log.suffix(600))")
        }
        for path in ["/status", "/metrics", "/feedback", "/dead-letters", "/event/broadcast", "/subscribers?proto=apns"] {
            _ = try await call(.GET, path)
        }
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        let log = herald.log
        #expect(log.contains("trace"), "the log is at trace level")
        #expect(log.contains("/event/broadcast"), "the access log is on")

        // The secrets: Basic passwords, the WNS client secret and the GCM API key from the configuration, the
        // private keys in the files it names, and every credential the services handed out.
        var secrets = [Self.password, Self.publisherPassword]
        let providerText = providers.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for key in ["client_secret:", "api_key:"] {
            if let line = providerText.first(where: { $0.hasPrefix(key) }) {
                secrets.append(String(line.dropFirst(key.count)).trimmingCharacters(in: .whitespaces))
            }
        }
        #expect(secrets.count == 4, "the simulated configuration has an inline WNS secret and GCM key")
        secrets += [Self.signingSecret, String(Self.signingSecret.dropFirst("whsec_".count))]
        for key in ["key_file:", "vapid_private_key_file:", "service_account_file:"] {
            guard let line = providerText.first(where: { $0.hasPrefix(key) }) else {
                Issue.record("no \(key) in the simulated configuration")
                continue
            }
            let text = try String(contentsOfFile: String(line.dropFirst(key.count)).trimmingCharacters(in: .whitespaces), encoding: .utf8)
            secrets += Self.keyMaterial(in: text)
        }
        #expect(secrets.count >= 12, "the key files' secret lines were found")
        for secret in secrets where secret.count >= 8 {
            #expect(!log.contains(secret), "a secret is in the log")
            #expect(!answers.contains { $0.contains(secret) }, "a secret is in an answer")
        }
        for marker in ["Bearer ", "bearer ", "-----BEGIN", "Authorization: Basic", "authorization: basic", "key=AIza"] {
            #expect(!log.contains(marker), "\(marker) in the log")
        }
        let basic = Data("ops:\(Self.password)".utf8).base64EncodedString()
        #expect(!log.contains(basic))
    }

    /// The secret lines of a PEM key (its base64 body) or a service account's `private_key`.
    private static func keyMaterial(in text: String) -> [String] {
        let unescaped = text.replacingOccurrences(of: "\\n", with: "\n")
        return unescaped.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("-----") && $0.count >= 16 && !$0.contains(" ") && !$0.contains("\"") }
    }
}
