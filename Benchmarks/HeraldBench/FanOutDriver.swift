import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldStore
import NIOCore

/// What the fan-out benchmarks share: seeding N subscribers of one kind, starting Herald with a
/// provider, publishing once and measuring until every delivery is recorded.
struct FanOutDriver {
    /// Subscribers of the published event.
    var subscribers: Int
    /// The herald binary to measure.
    var herald: String
    /// Working directory (databases, configurations, logs).
    var directory: String
    /// Herald's `delivery.in_flight`: deliveries started and not yet recorded, at most.
    var inFlight = 4000

    /// A fresh database with `subscribers` subscribers of `proto`, tokens from `token`, subscribed to `bench`.
    func seed(proto: String, token: (Int) -> String) async throws -> String {
        let path = directory + "/bench-\(UUID().uuidString).db"
        let store = try SQLiteStore(path: path)
        let event = EventName("bench")!
        let chunk = 20_000
        for start in stride(from: 0, to: subscribers, by: chunk) {
            let registrations = (start..<min(start + chunk, subscribers)).map { index in
                SubscriberRegistration(proto: proto, token: token(index))
            }
            _ = try await store.registerMany(registrations, subscribingTo: event, now: Int64(Date().timeIntervalSince1970))
        }
        try store.close()
        return path
    }

    /// Starts Herald with `provider` (the YAML of one entry under `providers:`, indented by four
    /// spaces), publishes once and waits until every delivery is recorded.
    func measure(label: String, tag: String, provider: String, database: String) async throws -> Result {
        let config = directory + "/herald-\(tag).yml"
        try """
            log:
              level: warning
            delivery:
              batch_size: 1000
              in_flight: \(inFlight)
              concurrent_jobs: 1
            providers:
            \(provider)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let httpPort = try freePort()
        let process = try ChildProcess.start(herald, ["serve", "--config", config, "--port", "\(httpPort)", "--database", "sqlite:\(database)"],
                                             log: directory + "/herald-\(tag).log")
        defer { process.stop() }
        let base = "http://127.0.0.1:\(httpPort)"
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get(base + "/status").status) == 204 }
        say("\(label): herald ready (pid \(process.process.processIdentifier)), publishing to \(subscribers) subscribers")
        let cpuBefore = process.cpuSeconds()
        let started = ContinuousClock.now
        let publish = try await client.post(base + "/event/bench", form: "msg=Benchmark&data.n=1")
        guard publish == 204 else { throw BenchError("publish answered \(publish)") }
        var done = 0
        while done < subscribers {
            try await Task.sleep(for: .milliseconds(50))
            let stats = try JSONSerialization.jsonObject(with: Data(try await client.get(base + "/event/bench").body.utf8)) as? [String: Any]
            done = (stats?["delivered"] as? Int ?? 0) + (stats?["failed"] as? Int ?? 0)
            if ContinuousClock.now - started > .seconds(1800) { throw BenchError("gave up after 30 minutes at \(done)") }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cpu = process.cpuSeconds() - cpuBefore
        let stats = try JSONSerialization.jsonObject(with: Data(try await client.get(base + "/event/bench").body.utf8)) as? [String: Any]
        var result = Result(label: label, rate: Double(subscribers) / seconds, seconds: seconds)
        result.peakRSSMiB = process.peakRSSMiB()
        result.cpuCores = cpu / seconds
        result.failed = stats?["failed"] as? Int ?? 0
        if result.failed > 0 { say("\(label): \(result.failed) deliveries failed; see \(directory)/herald-\(tag).log") }
        return result
    }

    /// Prints the results table and notes.
    static func report(_ results: [Result]) {
        say("")
        say("| run | notifications/s | publish → last answer | Herald peak RSS | Herald CPU (cores) |")
        say("|---|---:|---:|---:|---:|")
        for result in results {
            say(result.row)
        }
        for result in results where !result.note.isEmpty { say("\n\(result.label): \(result.note)") }
    }
}

/// A benchmark that could not run or whose check failed.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// One measured run.
struct Result {
    var label: String
    var rate: Double
    var seconds: Double
    var peakRSSMiB: Double?
    var cpuCores: Double?
    var failed = 0
    var note = ""

    var row: String {
        let rss = peakRSSMiB.map { String(format: "%.0f MiB", $0) } ?? "—"
        let cpu = cpuCores.map { String(format: "%.2f", $0) } ?? "—"
        return "| \(label) | \(String(format: "%.0f", rate)) | \(String(format: "%.2f s", seconds)) | \(rss) | \(cpu) |"
    }
}

/// Writes a line to standard output at once (print's buffer is lost if the run fails).
func say(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
