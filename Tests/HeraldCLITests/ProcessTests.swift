import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import Testing

/// The `herald` binary end to end: zero-configuration start, `herald send`, SIGTERM, and `kill -9`
/// in the middle of a fan-out.
@Suite(.serialized) struct ProcessTests {
    func post(_ url: String, form: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    @Test func zeroConfigurationStartSendAndGracefulStop() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let receiver = try await WebhookReceiver.start()
        let herald = try await HeraldProcess.start([], port: port, directory: directory)
        #expect(FileManager.default.fileExists(atPath: directory + "/herald.db"), "the default database is herald.db in the working directory")
        let hook = receiver.url("/zero").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await post("http://127.0.0.1:\(port)/subscribers", form: "proto=http&token=\(hook)") == 201)

        let sent = try HeraldProcess.run(["send", "broadcast", "msg=hello from send", "data.n=1", "--server", "http://127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let requests = try await receiver.waitFor(count: 1)
        #expect(requests.first?.body == #"{"event":"broadcast","title":{},"message":{"default":"hello from send"},"data":{"n":"1"}}"#)
        let refused = try HeraldProcess.run(["send", "e", "foo=bar", "--server", "http://127.0.0.1:\(port)"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Invalid field: foo"))

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }

    /// Publishes to 10,000 webhook subscribers, kills the server with SIGKILL part-way through,
    /// restarts it, and checks that every subscriber got the event and that duplicates stay
    /// within the configured in-flight bound.
    @Test func crashMidFanOutLosesNothing() async throws {
        let subscribers = 10_000
        let inFlight = 500
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        // A slow receiver keeps the fan-out going long enough to be interrupted.
        let receiver = try await WebhookReceiver.start { _ in
            try? await Task.sleep(for: .milliseconds(15))
            return .ok
        }
        let config = directory + "/herald.yml"
        try """
            delivery:
              batch_size: 100
              in_flight: \(inFlight)
              concurrent_jobs: 1
              lease_duration: 2
            providers:
              http:
                kind: http
                max_concurrent: 50
            """.write(toFile: config, atomically: true, encoding: .utf8)

        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for index in stride(from: worker, to: subscribers, by: 16) {
                        let hook = receiver.url("/s/\(index)").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                        let status = try await post("http://127.0.0.1:\(port)/subscribers", form: "proto=http&token=\(hook)")
                        guard status == 201 else { throw ProcessExited(log: "registration answered \(status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await post("http://127.0.0.1:\(port)/event/broadcast", form: "msg=crash") == 204)
        try await receiver.waitFor(count: subscribers / 4, limit: .seconds(120))
        herald.signal(SIGKILL)
        _ = await herald.waitForExit()
        let beforeRestart = receiver.count
        #expect(beforeRestart < subscribers, "the crash happened mid fan-out")

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(240)) { Set(receiver.requests.map(\.path)).count == subscribers }
        let paths = receiver.requests.map(\.path)
        let distinct = Set(paths)
        #expect(distinct.count == subscribers)
        #expect(paths.count - subscribers <= inFlight, "duplicates: \(paths.count - subscribers)")
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }
}
