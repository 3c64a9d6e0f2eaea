import Foundation
import HeraldCore
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport

/// One publish to webhook subscribers seeded into a fresh database, served by a Herald child process:
/// what the webhook benchmarks measure.
struct WebhookFanOutRun {
    /// The herald binary (a release build).
    var herald: String
    /// Working directory (databases, logs).
    var directory: String
    /// Webhook subscribers of the published event.
    var subscribers: Int

    /// Seeds the subscribers, starts Herald, publishes once and measures until `expected` healthy
    /// answers reached the receiver.
    func measure(label: String, receiver: WebhookReceiver, expected: Int, outbound: String = "", url: (Int) -> String) async throws -> Measured {
        let database = directory + "/bench-\(UUID().uuidString).db"
        let store = try SQLiteStore(path: database)
        let event = EventName("bench")!
        for start in stride(from: 0, to: subscribers, by: 20_000) {
            let registrations = (start..<min(start + 20_000, subscribers)).map { SubscriberRegistration(proto: "http", token: url($0)) }
            _ = try await store.registerMany(registrations, subscribingTo: event, now: Int64(Date().timeIntervalSince1970))
        }
        try store.close()
        defer { try? FileManager.default.removeItem(atPath: database) }

        let config = directory + "/herald.yml"
        try """
            log:
              level: warning
            \(outbound)
            delivery:
              shutdown_grace_period: 0.1
            providers:
              http:
                kind: http
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let port = try HeraldProcess.freePort()
        let process = try ChildProcess.start(
            herald, ["serve", "--config", config, "--port", "\(port)", "--database", "sqlite:\(database)"], log: directory + "/herald.log")
        defer { process.stop() }
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get("http://127.0.0.1:\(port)/status").status) == 204 }
        let before = receiver.count
        let cpuBefore = process.cpuSeconds()
        let started = ContinuousClock.now
        guard try await client.post("http://127.0.0.1:\(port)/event/bench", form: "msg=Benchmark") == 204 else {
            throw BenchError("\(label): the publish was refused")
        }
        while receiver.count - before < expected {
            try await Task.sleep(for: .milliseconds(5))
            if ContinuousClock.now - started > .seconds(1800) { throw BenchError("\(label): gave up at \(receiver.count - before)") }
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        let measured = Measured(
            label: label, rate: Double(expected) / seconds, seconds: seconds, peakRSSMiB: process.peakRSSMiB(),
            cores: (process.cpuSeconds() - cpuBefore) / seconds)
        say(measured.row)
        return measured
    }

    struct Measured {
        var label: String
        var rate: Double
        var seconds: Double
        var peakRSSMiB: Double?
        var cores: Double

        var row: String {
            let rss = peakRSSMiB.map { String(format: "%.0f MiB", $0) } ?? "—"
            return "| \(label) | \(String(format: "%.0f", rate)) | \(String(format: "%.2f s", seconds)) | \(rss) | \(String(format: "%.2f", cores)) |"
        }
    }
}
