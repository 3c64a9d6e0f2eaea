import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import Synchronization

/// `herald-bench unifiedpush`: RFC 8030 pushes per second to a topic with connected subscribers
/// (each push stored and streamed to every one of them), as a ratio to the discovery route of the
/// same listener (`GET /<topic>?up=1`, which touches no store), under wrk, in the same run (issue 42).
struct UnifiedPushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unifiedpush",
        abstract: "Start Herald with its UnifiedPush listener, connect subscribers, and measure pushes against the discovery route with wrk.")

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "The wrk binary.")
    var wrk = "/usr/bin/wrk"

    @Option(help: "Working directory (database, configuration, logs).")
    var directory = "/tmp/herald-unifiedpush-bench"

    @Option(help: "Subscribers connected to the topic (every push goes to each).")
    var subscribers = 8

    @Option(help: "wrk connections (-c).")
    var connections = 32

    @Option(help: "Seconds per route (-d).")
    var seconds = 10

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        say("wrk -t1 -c\(connections) -d\(seconds)s, \(subscribers) subscribers, herald \(herald)")
        let port = try HeraldProcess.freePort()
        let pushPort = try HeraldProcess.freePort()
        let base = "http://127.0.0.1:\(pushPort)"
        let config = directory + "/herald.yml"
        try """
            log:
              level: warning
            unifiedpush:
              host: 127.0.0.1
              port: \(pushPort)
              base_url: \(base)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let child = try ChildProcess.start(
            herald, ["serve", "--config", config, "--port", "\(port)", "--database", "sqlite:\(directory)/herald.db"], log: directory + "/herald.log")
        defer { child.stop() }
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get("http://127.0.0.1:\(port)/status").status) == 204 }

        // The subscribers: live `/json` streams, counting the messages they receive.
        let received = MessageCount()
        let streams = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<self.subscribers {
                    group.addTask {
                        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/upBench/json"), timeout: .hours(1))
                        for try await chunk in response.body {
                            let text = String(buffer: chunk)
                            let messages = text.components(separatedBy: #""event":"message""#).count - 1
                            if messages > 0 { received.value.add(messages, ordering: .relaxed) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        defer { streams.cancel() }
        try await Task.sleep(for: .seconds(1))

        let push = directory + "/push.lua"
        try """
            wrk.method = "POST"
            wrk.body = "a push of an ordinary size, as an encrypted one would be: 0123456789abcdef0123456789abcdef"
            wrk.headers["TTL"] = "60"
            """.write(toFile: push, atomically: true, encoding: .utf8)
        let wrk = Wrk(binary: self.wrk, threads: 1, connections: connections, seconds: seconds, directory: directory)
        let discovery = Wrk.Route(name: "GET /upBench?up=1 (discovery)", path: "/upBench?up=1", script: nil)
        let first = try wrk.measure(base: base, route: discovery)
        let pushes = try wrk.measure(base: base, route: Wrk.Route(name: "POST /upBench", path: "/upBench", script: push))
        let last = try wrk.measure(base: base, route: discovery)
        let yardstick = (first.rate + last.rate) / 2
        let expected = Int(pushes.rate * Double(seconds)) * subscribers
        // Every push reaches every subscriber: wait for the streams to catch up.
        let deadline = ContinuousClock.now + .seconds(30)
        while received.value.load(ordering: .relaxed) < expected * 9 / 10, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        say("")
        say("| route | requests/s | ratio to discovery | mean latency | non-2xx |")
        say("|---|---:|---:|---:|---:|")
        say("| GET /upBench?up=1 | \(Int(yardstick)) (\(Int(first.rate)) before, \(Int(last.rate)) after) | 1.00 | \(first.latency) / \(last.latency) | \(first.errors + last.errors) |")
        say("| POST /upBench (TTL 60, \(subscribers) subscribers) | \(Int(pushes.rate)) | \(String(format: "%.2f", pushes.rate / yardstick)) | \(pushes.latency) | \(pushes.errors) |")
        say("")
        say("messages received by the subscribers: \(received.value.load(ordering: .relaxed)) of about \(expected) (pushes × subscribers)")
        say("herald peak RSS \(String(format: "%.1f", child.peakRSSMiB() ?? 0)) MiB")
    }
}

/// The messages the subscribers received, counted from their tasks.
final class MessageCount: Sendable {
    let value = Atomic<Int>(0)
}
