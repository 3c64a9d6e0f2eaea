import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import Testing

/// A UnifiedPush message answered 201 survives `kill -9` of the process that took it (issue 42).
@Suite struct UnifiedPushCrashTests {
    @Test func aPushAnswered201SurvivesKill() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let pushPort = try HeraldProcess.freePort()
        let config = directory + "/herald.yml"
        try """
            server:
              database: sqlite:\(directory)/herald.db
            unifiedpush:
              host: 127.0.0.1
              port: \(pushPort)
              base_url: http://127.0.0.1:\(pushPort)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let base = "http://127.0.0.1:\(pushPort)"
        func get(_ path: String) async throws -> (Int, String) {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(10))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }

        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        do {
            #expect(try await get("/upCrash1/json?poll=1").0 == 200)
            var request = HTTPClientRequest(url: base + "/upCrash1")
            request.method = .POST
            request.headers.add(name: "TTL", value: "3600")
            request.body = .bytes(ByteBuffer(string: "kept-across-a-crash"))
            #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code == 201)
            herald.signal(SIGKILL)
            _ = await herald.waitForExit()

            herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
            let (status, body) = try await get("/upCrash1/json?poll=1&since=all")
            #expect(status == 200)
            #expect(body.contains("kept-across-a-crash"), "\(body)")
            herald.signal(SIGTERM)
            #expect(await herald.waitForExit() == 0, "\(herald.log)")
        } catch {
            herald.signal(SIGKILL)
            throw error
        }
    }
}
