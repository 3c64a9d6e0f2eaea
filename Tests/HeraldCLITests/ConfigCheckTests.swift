import Foundation
import HeraldTestSupport
import Testing

/// `herald config check`: the configuration `herald serve` would run with, printed as YAML with the
/// defaults and the environment in and every secret hidden; an invalid one exits non-zero naming the key.
@Suite struct ConfigCheckTests {
    func configFile(_ yaml: String) throws -> String {
        let path = TestHerald.makeTemporaryDirectory() + "/herald.yml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func printsTheDefaults() async throws {
        let (status, stdout, stderr) = try await HeraldProcess.runCapturingOutput(["config", "check", "--config", try configFile("")])
        #expect(status == 0, "\(stderr)")
        for line in ["  http:\n    host: 0.0.0.0\n    port: 8080", "database: sqlite:herald.db", "  max_attempts: 5", "  commit_interval: 0.02",
                     "  max_retry_age: 86400", "level: info", "  http:\n    kind: http", "  enabled: true"] {
            #expect(stdout.contains(line), "missing \(line) in\n\(stdout)")
        }
    }

    @Test func theEnvironmentAndTheFlagsAreIn() async throws {
        let file = try configFile("delivery:\n  max_attempts: 3\n")
        let (status, stdout, stderr) = try await HeraldProcess.runCapturingOutput(
            ["config", "check", "--config", file, "--log-level", "debug"],
            environment: ["HERALD_DELIVERY_MAX_ATTEMPTS": "9", "HERALD_SERVER_HTTP_PORT": "9090"])
        #expect(status == 0, "\(stderr)")
        #expect(stdout.contains("  max_attempts: 9"))
        #expect(stdout.contains("    port: 9090"))
        #expect(stdout.contains("level: debug"))
    }

    @Test func everySecretIsHidden() async throws {
        let yaml = """
            server:
              database: postgres://herald:db-password-1@127.0.0.1:5432/herald
              auth:
                admin: {password: basic-password-2, realms: [admin]}
            providers:
              http: {kind: http, signing_secret: [whsec_c2lnbmluZy1zZWNyZXQtMw==, whsec_c2lnbmluZy1zZWNyZXQtNA==]}
              wns-toast: {kind: wns, type: toast, client_id: ms-app://s-1, client_secret: wns-secret-5}
              gcm-legacy: {kind: gcm-legacy, endpoint: "https://gcm.example.com/gcm/send", api_key: legacy-key-6}
            compat:
              suj_pusher: {redis: "redis://:redis-password-7@127.0.0.1:6379/0", api_keys: {gcm-api-key-8: gcm-legacy}}
            """
        let (status, stdout, stderr) = try await HeraldProcess.runCapturingOutput(["config", "check", "--config", try configFile(yaml)])
        #expect(status == 0, "\(stderr)")
        for secret in ["db-password-1", "basic-password-2", "c2lnbmluZy1zZWNyZXQtMw", "c2lnbmluZy1zZWNyZXQtNA", "wns-secret-5", "legacy-key-6",
                       "redis-password-7", "gcm-api-key-8"] {
            #expect(!stdout.contains(secret), "\(secret) printed")
            #expect(!stderr.contains(secret), "\(secret) logged")
        }
        #expect(stdout.contains("postgres://herald:***@127.0.0.1:5432/herald"))
        #expect(stdout.contains("password: \"***\""))
        #expect(stdout.contains("client_id: ms-app://s-1"), "what is not secret is shown")
    }

    @Test func anInvalidFileExitsNonZeroNamingTheKey() async throws {
        let file = try configFile("delivery:\n  max_attempts: many\n")
        let (status, stdout, stderr) = try await HeraldProcess.runCapturingOutput(["config", "check", "--config", file])
        #expect(status != 0)
        #expect(stderr.contains("delivery.max_attempts"))
        #expect(stdout.isEmpty)
    }

    @Test func aMalformedSigningSecretIsNamed() async throws {
        let file = try configFile("providers:\n  hooks: {kind: http, signing_secret: not-a-whsec-secret}\n")
        let (status, stdout, stderr) = try await HeraldProcess.runCapturingOutput(["config", "check", "--config", file])
        #expect(status != 0)
        #expect(stderr.contains("providers.hooks.signing_secret"))
        #expect(!stderr.contains("not-a-whsec-secret"))
        #expect(stdout.isEmpty)
    }

    @Test func theOutputLoadsIntoTheSameConfiguration() async throws {
        let yaml = """
            server:
              udp: {port: 7000}
              acl: {publish: [127.0.0.1, "::1"]}
              rate_limit: {register: {rate: 0.5}}
            outbound: {deny: [10.0.0.0/8], allow: []}
            delivery: {retry_delay: 0.25, max_retry_age: 0}
            providers:
              http: {kind: http, timeout: 5}
            """
        let first = try await HeraldProcess.runCapturingOutput(["config", "check", "--config", try configFile(yaml)])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await HeraldProcess.runCapturingOutput(["config", "check", "--config", try configFile(first.stdout)])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == first.stdout)
        #expect(first.stdout.contains("  retry_delay: 0.25"))
        #expect(first.stdout.contains("    register:\n      rate: 0.5\n      burst: 1"))
    }
}
