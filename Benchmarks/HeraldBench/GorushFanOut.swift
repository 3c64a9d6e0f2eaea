import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport
import NIOCore

/// gorush's `POST /api/push` (compat.md §6) against the same notifications published the pushd
/// way: N requests of T distinct iOS tokens each, against N events of T subscribers each published
/// once, both to one APNs provider pointing at the h2o sink; the rate of notifications accepted and
/// answered, as a ratio (issue 16: the stand-in should cost little on top of the core).
struct GorushFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gorush",
        abstract: "gorush's POST /api/push with T tokens per request against pushd events to T subscribers, as a ratio.")

    @Option(help: "gorush requests (one iOS notification each), and pushd events published, per run.")
    var requests = 100

    @Option(help: "Tokens per gorush request, and subscribers per pushd event.")
    var tokensPerRequest = 1000

    @Option(help: "Requests (or publishes) in flight at once.")
    var concurrency = 4

    @Option(help: "Runs, each measuring both front doors (alternating which goes first); the ratio's median is reported.")
    var runs = 3

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Herald's delivery.in_flight.")
    var inFlight = 8000

    @Option(help: "Herald's delivery.batch_size: the audience page.")
    var batchSize = 1000

    @Option(help: "Working directory (databases, certificates, logs).")
    var directory = "/tmp/herald-bench-gorush"

    /// The payload both ways: `{"aps":{"alert":"Benchmark","badge":1},"n":"1"}`.
    static let publishForm = "msg=Benchmark&data.n=1&incrementBadge=false&badge=1"

    func run() async throws {
        guard requests > 0, tokensPerRequest > 0, concurrency > 0, runs > 0 else { throw ValidationError("counts must be positive") }
        let (credentials, sink) = try H2OSink.startForAPNsClients(directory: directory)
        defer { sink.stop() }
        let notifications = requests * tokensPerRequest
        say("\(requests) requests × \(tokensPerRequest) tokens = \(notifications) notifications each way, \(concurrency) requests in flight")

        let config = directory + "/herald.yml"
        try """
            log:
              level: warning
            delivery:
              batch_size: \(batchSize)
              in_flight: \(inFlight)
              max_backlog: 0
            providers:
              apns:
                kind: apns
                endpoint: https://127.0.0.1:\(sink.port)
                ca_file: \(credentials.authority.caCertificateFile!)
                topic: com.example.bench
                team_id: BENCHTEAM1
                key_id: BENCHKEY01
                key_file: \(credentials.keyFile)
                max_connections: 8
            compat:
              gorush:
                ios_provider: apns
            """.write(toFile: config, atomically: true, encoding: .utf8)

        // The request bodies are made before any clock starts.
        let bodies = (0..<requests).map { request in
            let tokens = (0..<tokensPerRequest).map { #""\#(Self.token(request * tokensPerRequest + $0))""# }.joined(separator: ",")
            return #"{"notifications":[{"tokens":[\#(tokens)],"platform":1,"message":"Benchmark","badge":1,"data":{"n":"1"}}]}"#
        }

        var rows: [Measured] = []
        var ratios: [Double] = []
        for run in 1...runs {
            let suffix = runs > 1 ? " (run \(run))" : ""
            var gorush: Measured?
            var pushd: Measured?
            for door in run % 2 == 1 ? [Door.gorush, .pushd] : [.pushd, .gorush] {
                let measured = try await sink.measuringCPU(requests: notifications) {
                    try await measure(door, label: "\(door.rawValue)\(suffix)", config: config, bodies: bodies)
                }
                var result = measured.0
                result.sinkMicrosecondsPerRequest = measured.microsecondsPerRequest
                say(result.row)
                if door == .gorush { gorush = result } else { pushd = result }
                rows.append(result)
            }
            let ratio = gorush!.rate / pushd!.rate
            ratios.append(ratio)
            say(String(format: "run %d: gorush / pushd = %.3f", run, ratio))
        }
        say("")
        say(Measured.header)
        for row in rows { say(row.row) }
        say("")
        say(Result.ratioSummary(ratios, of: "gorush / pushd"))
    }

    enum Door: String {
        /// N `POST /api/push` of T tokens each.
        case gorush
        /// N events of T subscribers each, published once each.
        case pushd
    }

    /// A 64-digit hex APNs token, distinct for every index.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    /// Starts Herald on a fresh database (seeded with the events' subscribers for pushd), sends the
    /// requests or publishes, and measures from the first until every notification was answered.
    private func measure(_ door: Door, label: String, config: String, bodies: [String]) async throws -> Measured {
        let notifications = requests * tokensPerRequest
        let database = directory + "/bench-\(UUID().uuidString).db"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        }
        let store = try SQLiteStore(path: database)
        if door == .pushd {
            let now = Int64(Date().timeIntervalSince1970)
            for event in 0..<requests {
                let registrations = (0..<tokensPerRequest).map {
                    SubscriberRegistration(proto: "apns", token: Self.token(event * tokensPerRequest + $0))
                }
                _ = try await store.registerMany(registrations, subscribingTo: EventName("bench\(event)")!, now: now)
            }
        }
        try store.close()

        let port = try HeraldProcess.freePort()
        let process = try ChildProcess.start(
            herald, ["serve", "--config", config, "--port", "\(port)", "--database", "sqlite:\(database)"],
            log: directory + "/herald-\(door.rawValue).log")
        defer { process.stop() }
        let base = "http://127.0.0.1:\(port)"
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get(base + "/status").status) == 204 }

        let cpuBefore = process.cpuSeconds()
        let started = ContinuousClock.now
        // The requests, `concurrency` at a time; each must be accepted whole.
        let sender = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func start() {
                    let index = next
                    next += 1
                    group.addTask {
                        switch door {
                        case .gorush:
                            let (status, answer) = try await Self.post(base + "/api/push", json: bodies[index])
                            guard status == 200, answer.hasPrefix(#"{"counts":\#(tokensPerRequest),"logs":[]"#) else {
                                throw BenchError("gorush request \(index) answered \(status): \(answer.prefix(300))")
                            }
                        case .pushd:
                            let status = try await client.post(base + "/event/bench\(index)", form: Self.publishForm)
                            guard status == 204 else { throw BenchError("publish \(index) answered \(status)") }
                        }
                    }
                }
                while next < min(concurrency, requests) { start() }
                while try await group.next() != nil {
                    if next < requests { start() }
                }
            }
            return ContinuousClock.now - started
        }
        var answered = (total: 0, delivered: 0)
        var firstAnswer: Duration?
        while answered.total < notifications {
            let closeToAnEnd = answered.total == 0 || answered.total >= notifications - notifications / 10
            try await Task.sleep(for: .milliseconds(closeToAnEnd ? 5 : 50))
            answered = Self.deliveries(metrics: try await client.get(base + "/metrics").body)
            if firstAnswer == nil, answered.total > 0 { firstAnswer = ContinuousClock.now - started }
            if ContinuousClock.now - started > .seconds(1800) { throw BenchError("\(label): gave up after 30 minutes at \(answered.total)") }
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        let cpu = process.cpuSeconds() - cpuBefore
        let accepted = try await sender.value
        guard answered.delivered == notifications, answered.total == notifications else {
            throw BenchError("\(label): \(answered.delivered) delivered of \(answered.total) answered, \(notifications) expected; see the log")
        }
        return Measured(
            label: label, rate: Double(notifications) / seconds, acceptedSeconds: accepted.inSeconds, firstAnswerSeconds: firstAnswer?.inSeconds,
            seconds: seconds, peakRSSMiB: process.peakRSSMiB(), cores: cpu / seconds)
    }

    /// `herald_deliveries_total` summed over its label sets, and its `delivered` outcome alone.
    static func deliveries(metrics: String) -> (total: Int, delivered: Int) {
        var total = 0.0
        var delivered = 0.0
        for line in metrics.split(separator: "\n") where line.hasPrefix("herald_deliveries_total{") {
            guard let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            total += value
            if line.contains(#"outcome="delivered""#) { delivered += value }
        }
        return (Int(total), Int(delivered))
    }

    /// POSTs a JSON body and returns the status and the answer's text.
    static func post(_ url: String, json: String) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), String(buffer: body))
    }

    /// One front door's run.
    struct Measured {
        var label: String
        var rate: Double
        /// From the first request to the last one's answer.
        var acceptedSeconds: Double
        var firstAnswerSeconds: Double?
        /// From the first request to the last notification answered.
        var seconds: Double
        var peakRSSMiB: Double?
        var cores: Double
        var sinkMicrosecondsPerRequest: Double?

        static let header = """
            | run | notifications/s | first request → all accepted | → first answer | → last answer | Herald peak RSS | Herald CPU (cores) | h2o CPU µs per request |
            |---|---:|---:|---:|---:|---:|---:|---:|
            """

        var row: String {
            let rss = peakRSSMiB.map { String(format: "%.0f MiB", $0) } ?? "—"
            let first = firstAnswerSeconds.map { String(format: "%.2f s", $0) } ?? "—"
            let sink = sinkMicrosecondsPerRequest.map { String(format: "%.1f", $0) } ?? "—"
            return "| \(label) | \(String(format: "%.0f", rate)) | \(String(format: "%.2f s", acceptedSeconds)) | \(first) | "
                + "\(String(format: "%.2f s", seconds)) | \(rss) | \(String(format: "%.2f", cores)) | \(sink) |"
        }
    }
}
