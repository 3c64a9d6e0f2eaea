import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import Testing

/// `server.access_log: true` on the real `herald` binary: each HTTP request is one standard-error line whose
/// message is `<METHOD> <url> <status>` (pushd-api.md §1.4), so a grep for `GET /events 200` finds it.
@Suite(.serialized) struct AccessLogTests {
    /// Sends `GET url` and returns the status code.
    func get(_ url: String) async throws -> Int {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    /// The messages of the log's lines: what follows the `[source] ` of swift-log's `StreamLogHandler`, or the
    /// whole line when it has no such prefix.
    static func messages(_ log: String) -> [String] {
        log.split(separator: "\n").map { line in
            guard let end = line.range(of: "] ") else { return String(line) }
            return String(line[end.upperBound...])
        }
    }

    @Test func eachRequestIsLoggedAsMethodURLStatus() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let config = directory + "/herald.yml"
        try """
            server:
              access_log: true
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        let base = "http://127.0.0.1:\(port)"
        #expect(try await get(base + "/events") == 200)
        #expect(try await get(base + "/no/such/route") == 404)
        #expect(try await get(base + "/status?probe=1") == 204)

        // The line is written before the answer leaves the server, so this normally passes at once; it only
        // guards against a stderr write still on its way to the file when the answer arrives.
        try await eventually(limit: .seconds(30)) {
            Self.messages(herald.log).contains("GET /status?probe=1 204")
        }
        let messages = Self.messages(herald.log)
        #expect(messages.contains("GET /events 200"), "\(herald.log)")
        #expect(messages.contains("GET /no/such/route 404"), "\(herald.log)")
        #expect(messages.contains("GET /status?probe=1 204"), "\(herald.log)")
        #expect(!messages.contains("request"), "the old message text is gone")

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
    }

    @Test func nothingIsLoggedWithoutAccessLog() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let herald = try await HeraldProcess.start([], port: port, directory: directory)
        #expect(try await get("http://127.0.0.1:\(port)/events") == 200)
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        #expect(!herald.log.contains("GET /events"), "\(herald.log)")
    }
}
