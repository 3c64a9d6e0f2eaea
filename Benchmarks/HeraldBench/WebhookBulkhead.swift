import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport

/// One event to N webhook subscribers, a share of whom point at a host that accepts connections
/// and never answers, against the same event with none hanging: the rate at which the healthy
/// subscribers are served, as a ratio (the bulkheads of issue 22).
struct WebhookBulkhead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook-bulkhead",
        abstract: "Healthy webhook subscribers' rate with a share of hanging ones, against none hanging.")

    @Option(help: "Webhook subscribers of the published event.")
    var subscribers = 100_000

    @Option(help: "Percent of them whose host accepts and never answers.")
    var hungPercent = 1.0

    @Option(help: "Pairs of runs (none hanging, then some), alternating; the ratio's median is reported.")
    var runs = 3

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Working directory (databases, logs).")
    var directory = "/tmp/herald-webhook-bulkhead"

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        let receiver = try await WebhookReceiver.start()
        let silent = try SilentListener()
        defer { silent.close() }
        let every = max(1, Int((100 / max(hungPercent, 0.001)).rounded()))
        let hung = hungPercent > 0 ? (subscribers + every - 1) / every : 0
        let healthy = subscribers - hung
        say("\(subscribers) webhook subscribers, \(hung) of them (every \(every)th) on a host that never answers; \(healthy) healthy")

        var ratios: [Double] = []
        var rows: [String] = []
        for run in 1...runs {
            let base = try await measure(label: "none hanging (run \(run))", receiver: receiver, expected: subscribers) { index in
                receiver.url("/s/\(index)")
            }
            let withHung = try await measure(label: "\(hungPercent) % hanging (run \(run))", receiver: receiver, expected: healthy) { index in
                index % every == 0 ? silent.url("/h/\(index)") : receiver.url("/s/\(index)")
            }
            rows += [base.row, withHung.row]
            ratios.append(withHung.rate / base.rate)
        }
        say("")
        say("| run | healthy notifications/s | publish → last healthy answer | Herald peak RSS | Herald CPU (cores) |")
        say("|---|---:|---:|---:|---:|")
        for row in rows { say(row) }
        say("")
        say(Result.ratioSummary(ratios, of: "healthy rate with hanging subscribers / without"))
        await receiver.stop()
    }

    /// Seeds the subscribers, starts Herald, publishes once and measures until `expected` healthy
    /// answers reached the receiver.
    private func measure(label: String, receiver: WebhookReceiver, expected: Int, url: (Int) -> String) async throws -> Measured {
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

    private struct Measured {
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
