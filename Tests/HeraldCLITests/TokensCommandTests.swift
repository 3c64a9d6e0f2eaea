import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import Testing

/// `herald tokens create|list|revoke`: written to the configured database while a server runs on
/// it, which accepts a created token and refuses a revoked one within a second.
@Suite struct TokensCommandTests {
    @Test func createListAndRevokeAgainstARunningServer() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let config = directory + "/herald.yml"
        try "server:\n  database: sqlite:\(directory)/herald.db\nproviders:\n  hooks-a: {kind: http}\n"
            .write(toFile: config, atomically: true, encoding: .utf8)

        let create = ["tokens", "create", "--config", config, "--name", "chat-app", "--realms", "publish,register",
                      "--providers", "hooks-a", "--events", "chat.*,news", "--expires", "90d"]
        let created = try await HeraldProcess.runCapturingOutput(create)
        #expect(created.status == 0, "\(created.stderr)")
        let secret = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("hld_") && secret.utf8.count == 47, "\(secret)")

        let again = try await HeraldProcess.runCapturingOutput(create)
        #expect(again.status != 0)
        #expect(again.stderr.contains("A token named chat-app exists"), "\(again.stderr)")
        let unknown = try await HeraldProcess.runCapturingOutput(
            ["tokens", "create", "--config", config, "--name", "other", "--realms", "publish", "--providers", "apns-x"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("Unknown provider apns-x"), "\(unknown.stderr)")

        let listed = try await HeraldProcess.runCapturingOutput(["tokens", "list", "--config", config])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("chat-app\tpublish,register\thooks-a\tchat.*,news\t"), "\(listed.stdout)")
        #expect(!listed.stdout.contains(secret), "the secret is shown once")

        let port = try HeraldProcess.freePort()
        @Sendable func events() async throws -> Int {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/events")
            request.headers.add(name: "Authorization", value: "Bearer \(secret)")
            return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(5)).status.code)
        }
        let server = try await HeraldProcess.start(["--config", config], port: port, directory: directory) { _ in try await events() == 200 }
        do {
            #expect(try await server.status() == 401, "a token exists and no Basic user: credentials are required")
            let revoked = try await HeraldProcess.runCapturingOutput(["tokens", "revoke", "--config", config, "chat-app"])
            #expect(revoked.status == 0, "\(revoked.stderr)")
            try await eventually(limit: .seconds(10)) { try await events() == 401 }
            let twice = try await HeraldProcess.runCapturingOutput(["tokens", "revoke", "--config", config, "chat-app"])
            #expect(twice.status == 1)
            #expect(twice.stderr.contains("no token named chat-app"))
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.log)")
        } catch {
            server.signal(SIGKILL)
            throw error
        }
    }
}
