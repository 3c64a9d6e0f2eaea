import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// `herald import pushd` as an operator runs it: the built binary, a configuration file, a
/// database URL, a summary on standard output and plain progress lines on standard error.
@Suite("herald import pushd (the command)")
struct ImportCommandTests {
    @Test("the binary imports a pushd database, prints the summary, and a second run updates by id")
    func commandImports() async throws {
        try await withPushd { redis, fixture in
            let directory = TestHerald.makeTemporaryDirectory()
            let config = directory + "/herald.yml"
            // `apns` is configured (so its tokens are lower-cased); `android` is not, and is reported.
            try """
                providers:
                  http:
                    kind: http
                  apns:
                    kind: apns
                    topic: com.example.app
                """.write(toFile: config, atomically: true, encoding: .utf8)
            let arguments = [
                "import", "pushd", "--redis", "redis://127.0.0.1:\(redis.url.port)/3", "--config", config,
                "--database", "sqlite:\(directory)/herald.db", "--batch-size", "16",
            ]
            let first = try await HeraldProcess.runCapturingOutput(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("subscribers: \(fixture.expected.count + fixture.skipped.count) read, \(fixture.expected.count + 1) imported (\(fixture.expected.count + 1) new, 0 updated)"), "\(first.stdout)")
            #expect(first.stdout.contains("skipped 1: listed in `subscribers` but no subscriber hash (dangling reference) (e.g. Dangling001)"))
            #expect(first.stdout.contains("with proto \"android\", which is not a configured provider"))
            #expect(first.stdout.contains("with proto \"mpns\", which is not a configured provider"))
            // Not a terminal: plain lines, the last one with every subscriber read.
            #expect(first.stderr.contains("import: \(fixture.expected.count + fixture.skipped.count)/"), "\(first.stderr)")
            #expect(!first.stderr.contains("\r"))

            let herald = try await TestHerald.start(yaml: "", directory: directory)
            do {
                for subscriber in fixture.expected {
                    let response = try await herald.request(.GET, "/subscriber/\(subscriber.id)")
                    #expect(response.status == 200)
                    #expect(response.body.contains("\"token\":\"\(subscriber.storedToken.replacingOccurrences(of: "/", with: "\\/"))\"")
                        || response.body.contains("\"token\":\"\(subscriber.storedToken)\""), "\(response.body)")
                    let subscriptions = try await herald.request(.GET, "/subscriber/\(subscriber.id)/subscriptions")
                    let listed = try JSONSerialization.jsonObject(with: Data(subscriptions.body.utf8)) as? [String: [String: Bool]]
                    #expect(listed == subscriber.subscriptions.mapValues { ["ignore_message": $0] })
                }
                // With no Herald subscriber holding its token, the pushd subscriber is imported.
                #expect(try await herald.request(.GET, "/subscriber/\(PushdFixture.heldID)").status == 200)
            } catch {
                try? await herald.stop()
                throw error
            }
            try await herald.stop()

            let second = try await HeraldProcess.runCapturingOutput(arguments)
            #expect(second.status == 0)
            #expect(second.stdout.contains("imported (0 new, \(fixture.expected.count + 1) updated)"), "\(second.stdout)")
        }
    }

    @Test("the binary imports into PostgreSQL (--database postgres://), checked through the REST API")
    func commandImportsIntoPostgres() async throws {
        let postgres = try await PostgresTestServer.shared()
        let database = postgres.url(database: try await postgres.createDatabase())
        try await withPushd { redis, fixture in
            let arguments = ["import", "pushd", "--redis", "redis://127.0.0.1:\(redis.url.port)/3", "--database", database, "--batch-size", "9"]
            let first = try await HeraldProcess.runCapturingOutput(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("\(fixture.expected.count + 1) imported (\(fixture.expected.count + 1) new, 0 updated)"), "\(first.stdout)")
            let second = try await HeraldProcess.runCapturingOutput(arguments)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains("imported (0 new, \(fixture.expected.count + 1) updated)"), "\(second.stdout)")

            let herald = try await TestHerald.start(yaml: "server:\n  database: \(database)\n")
            do {
                for subscriber in fixture.expected {
                    let subscriptions = try await herald.request(.GET, "/subscriber/\(subscriber.id)/subscriptions")
                    #expect(subscriptions.status == 200, "\(subscriber.id)")
                    let listed = try JSONSerialization.jsonObject(with: Data(subscriptions.body.utf8)) as? [String: [String: Bool]]
                    #expect(listed == subscriber.subscriptions.mapValues { ["ignore_message": $0] })
                }
                let sport = try await statistics(herald, "sport")
                #expect(sport?["total"] as? Int == 154)
                #expect(sport?["subscribers"] as? Int == fixture.subscriberCounts["sport"])
                // No Herald subscriber holds `HeldByHerld`'s token here, so its event is imported too.
                #expect(try await herald.request(.GET, "/events").body == "[\"all\",\"held-only\",\"news:0\",\"news:1\",\"sport\"]")
            } catch {
                try? await herald.stop()
                throw error
            }
            try await herald.stop()
        }
    }

    @Test("--dry-run prints the summary and creates no database")
    func dryRun() async throws {
        try await withPushd { redis, _ in
            let directory = TestHerald.makeTemporaryDirectory()
            let result = try await HeraldProcess.runCapturingOutput([
                "import", "pushd", "--redis", "redis://127.0.0.1:\(redis.url.port)/3", "--database", "sqlite:\(directory)/herald.db", "--dry-run",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("Dry run: nothing was written."))
            #expect(!FileManager.default.fileExists(atPath: directory + "/herald.db"))
        }
    }

    @Test("an unreachable Redis exits non-zero with one clear line; a bad --redis is a usage error")
    func unreachableRedis() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let result = try await HeraldProcess.runCapturingOutput([
            "import", "pushd", "--redis", "redis://127.0.0.1:\(port)/0", "--database", "sqlite:\(directory)/herald.db",
        ])
        #expect(result.status != 0)
        #expect(result.stderr.contains("herald: import pushd from redis://127.0.0.1:\(port)/0: cannot read the pushd database"), "\(result.stderr)")

        let bad = try await HeraldProcess.runCapturingOutput(["import", "pushd", "--redis", "http://example.com"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--redis"))
    }
}
