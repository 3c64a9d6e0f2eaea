import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldStore
import HeraldStorePostgres
import HeraldStoreSQLite
import Logging
import HeraldTestSupport
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
    var inFlight = 8000
    /// Herald's `delivery.batch_size`: the audience page.
    var batchSize = 1000
    /// Herald's `delivery.concurrent_jobs`. One publish is one job on SQLite; on PostgreSQL it is
    /// shared out in parts, which this many workers of a node send at once. Default 4, Herald's.
    var concurrentJobs = 4
    /// The publish's form. The default lets Herald increment every APNs subscriber's stored
    /// badge, as pushd does; `incrementBadge=false&badge=1` sends the same payload with no
    /// badge written.
    var publishForm = "msg=Benchmark&data.n=1"
    /// Whether the database is PostgreSQL (a server started for the run) rather than a SQLite file.
    var usesPostgres = false
    /// Herald processes sharing the database; the publish goes to the first.
    var nodes = 1
    /// Publishes sent and waited for before the measured one, unmeasured.
    var earlierPublishes = 0
    /// Whether Herald reaches PostgreSQL over its Unix-domain socket rather than TCP.
    var postgresOverSocket = false

    /// A fresh database with `subscribers` subscribers of `proto`, tokens from `token`, subscribed to
    /// `bench`; returns its `--database` argument.
    func seed(proto: String, token: (Int) -> String) async throws -> String {
        let store: any HeraldStore
        let location: String
        if usesPostgres {
            let server = try await PostgresTestServer.shared()
            let database = try await server.createDatabase()
            let postgres = try PostgresStore(
                configuration: PostgresStoreConfiguration(
                    host: server.host, port: server.port, username: server.username, password: server.password, database: database),
                logger: Logger(label: "herald.bench.seed"))
            Task { try await postgres.run() }
            try await postgres.waitUntilReady()
            let url = server.url(database: database) + (postgresOverSocket ? "?host=\(server.socketDirectory)" : "")
            (store, location) = (postgres, url)
        } else {
            let path = directory + "/bench-\(UUID().uuidString).db"
            (store, location) = (try SQLiteStore(path: path), "sqlite:\(path)")
        }
        let event = EventName("bench")!
        let chunk = 20_000
        for start in stride(from: 0, to: subscribers, by: chunk) {
            let registrations = (start..<min(start + chunk, subscribers)).map { index in
                SubscriberRegistration(proto: proto, token: token(index))
            }
            _ = try await store.registerMany(registrations, subscribingTo: event, now: Int64(Date().timeIntervalSince1970))
        }
        try await store.close()
        return location
    }

    /// Removes a seeded SQLite database (a PostgreSQL one goes with the server at exit).
    func discard(_ database: String) {
        guard database.hasPrefix("sqlite:") else { return }
        let path = String(database.dropFirst("sqlite:".count))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Starts Herald with `provider` (the YAML of one entry under `providers:`, indented by four
    /// spaces), publishes once and waits until every delivery is recorded.
    func measure(label: String, tag: String, provider: String, database: String) async throws -> Result {
        let config = directory + "/herald-\(tag).yml"
        try """
            log:
              level: warning
            delivery:
              batch_size: \(batchSize)
              in_flight: \(inFlight)
              concurrent_jobs: \(concurrentJobs)
            providers:
            \(provider)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        var processes: [ChildProcess] = []
        var bases: [String] = []
        defer { for process in processes { process.stop() } }
        let client = BenchClient()
        for node in 0..<nodes {
            let httpPort = try HeraldProcess.freePort()
            let log = directory + (nodes == 1 ? "/herald-\(tag).log" : "/herald-\(tag)-\(node).log")
            processes.append(try ChildProcess.start(herald, ["serve", "--config", config, "--port", "\(httpPort)", "--database", database], log: log))
            bases.append("http://127.0.0.1:\(httpPort)")
        }
        for base in bases {
            try await client.waitUntil { (try? await client.get(base + "/status").status) == 204 }
        }
        let base = bases[0]
        let pids = processes.map { "\($0.process.processIdentifier)" }.joined(separator: ", ")
        // Earlier fan-outs, each waited for until it is recorded: the measured one counts from theirs.
        for earlier in 0..<earlierPublishes {
            say("\(label): earlier publish \(earlier + 1) of \(earlierPublishes) (not measured)")
            let publish = try await client.post(base + "/event/bench", form: publishForm)
            guard publish == 204 else { throw BenchError("publish answered \(publish)") }
            let waitStarted = ContinuousClock.now
            while try await Self.recorded(client: client, base: base).count < (earlier + 1) * subscribers {
                if ContinuousClock.now - waitStarted > .seconds(1800) { throw BenchError("earlier publish \(earlier + 1) unfinished after 30 minutes") }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        var answeredBefore = 0
        for base in bases { answeredBefore += Self.deliveriesAnswered(metrics: try await client.get(base + "/metrics").body) }
        let recordedBefore = earlierPublishes * subscribers
        say("\(label): herald ready (pid \(pids)), publishing to \(subscribers) subscribers")
        let cpuBefore = processes.map { $0.cpuSeconds() }.reduce(0, +)
        let started = ContinuousClock.now
        let publish = try await client.post(base + "/event/bench", form: publishForm)
        guard publish == 204 else { throw BenchError("publish answered \(publish)") }
        // Answers are counted from `/metrics`, which costs Herald next to nothing and counts what the
        // provider answered. (`GET /event/bench` used to count the event's subscriptions on every
        // call, which at 20 polls a second cost Herald 14 % of its CPU at N = 300,000.)
        var answered = 0
        var firstAnswer: Duration?
        while answered < subscribers {
            // Polls are 50 ms apart in the middle of the run and 5 ms apart before the first answer
            // and over the last tenth, where the interval would otherwise add up to 50 ms to the
            // measured time (3 % of a 100,000-subscriber run).
            let closeToAnEnd = answered == 0 || answered >= subscribers - subscribers / 10
            try await Task.sleep(for: .milliseconds(closeToAnEnd ? 5 : 50))
            answered = -answeredBefore
            for base in bases { answered += Self.deliveriesAnswered(metrics: try await client.get(base + "/metrics").body) }
            if firstAnswer == nil, answered > 0 { firstAnswer = ContinuousClock.now - started }
            if ContinuousClock.now - started > .seconds(1800) { throw BenchError("gave up after 30 minutes at \(answered)") }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.inSeconds
        let cpu = processes.map { $0.cpuSeconds() }.reduce(0, +) - cpuBefore
        // Every answer must also be recorded: the event's statistics reach N shortly after.
        var failed = 0
        var recorded = 0
        while recorded < subscribers {
            let statistics = try await Self.recorded(client: client, base: base)
            recorded = statistics.count - recordedBefore
            failed = statistics.failed
            if recorded < subscribers {
                if ContinuousClock.now - started > .seconds(1800) { throw BenchError("gave up after 30 minutes at \(recorded) recorded") }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        var result = Result(label: label, rate: Double(subscribers) / seconds, seconds: seconds)
        result.firstAnswerSeconds = firstAnswer?.inSeconds
        result.peakRSSMiB = processes.compactMap { $0.peakRSSMiB() }.max()
        result.cpuCores = cpu / seconds
        result.failed = failed
        if result.failed > 0 { say("\(label): \(result.failed) deliveries failed; see \(directory)/herald-\(tag).log") }
        return result
    }

    /// The event's recorded deliveries (delivered and failed) and failures, from its statistics.
    static func recorded(client: BenchClient, base: String) async throws -> (count: Int, failed: Int) {
        let stats = try JSONSerialization.jsonObject(with: Data(try await client.get(base + "/event/bench").body.utf8)) as? [String: Any]
        let failed = stats?["failed"] as? Int ?? 0
        return ((stats?["delivered"] as? Int ?? 0) + failed, failed)
    }

    /// The sum of `herald_deliveries_total` over its label sets: every answer from the provider.
    static func deliveriesAnswered(metrics: String) -> Int {
        var total = 0.0
        for line in metrics.split(separator: "\n") where line.hasPrefix("herald_deliveries_total{") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { total += value }
        }
        return Int(total)
    }

    /// Runs Herald against the sink `runs` times, each on a freshly seeded database, bracketed by
    /// h2load runs against the same sink (``H2OSink/bracketedRuns(_:subject:requests:h2loadRequests:h2load:measure:)``).
    func sinkRuns(
        _ runs: Int, proto: String, token: (Int) -> String, provider: String, sink: H2OSink,
        h2load: () throws -> Double, h2loadRequests: Int
    ) async throws -> [Result] {
        try await sink.bracketedRuns(runs, subject: "Herald", requests: subscribers * (1 + earlierPublishes), h2loadRequests: h2loadRequests, h2load: h2load) { run in
            let database = try await seed(proto: proto, token: token)
            defer { discard(database) }
            return try await measure(label: runs > 1 ? "Herald → h2o sink (run \(run))" : "Herald → h2o sink", tag: "sink", provider: provider, database: database)
        }
    }

    /// Prints the results table and notes.
    static func report(_ results: [Result]) {
        say("")
        say("| run | notifications/s | publish → first answer | publish → last answer | Herald peak RSS | Herald CPU (cores) | h2o CPU µs per request |")
        say("|---|---:|---:|---:|---:|---:|---:|")
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
    /// From the publish to the first poll that saw an answer (polls are 5 ms apart then).
    var firstAnswerSeconds: Double?
    var failed = 0
    /// The sink's CPU time per request, where measured.
    var sinkMicrosecondsPerRequest: Double?
    var note = ""

    /// `name` per run, and their median.
    static func ratioSummary(_ ratios: [Double], of name: String) -> String {
        let ratioList = ratios.map { String(format: "%.3f", $0) }.joined(separator: ", ")
        return String(format: "%@ per run: %@; median %.3f", name, ratioList, ratios.sorted()[ratios.count / 2])
    }

    var row: String {
        let rss = peakRSSMiB.map { String(format: "%.0f MiB", $0) } ?? "—"
        let cpu = cpuCores.map { String(format: "%.2f", $0) } ?? "—"
        let first = firstAnswerSeconds.map { String(format: "%.2f s", $0) } ?? "—"
        let sink = sinkMicrosecondsPerRequest.map { String(format: "%.1f", $0) } ?? "—"
        return "| \(label) | \(String(format: "%.0f", rate)) | \(first) | \(String(format: "%.2f s", seconds)) | \(rss) | \(cpu) | \(sink) |"
    }
}

/// Writes a line to standard output at once (print's buffer is lost if the run fails).
func say(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

extension Result {
    /// Prints the runs of a client measured in this process beside h2load (rate, the client's
    /// CPU per `unit` at `requestsPerRun` per run, the sink's CPU per request, wall time, cores),
    /// then each run's note.
    static func sayClientTable(_ results: [Result], requestsPerRun: Int, unit: String) {
        say("")
        say("| run | \(unit)s/s | client CPU µs per \(unit) | h2o CPU µs per request | wall time | client CPU (cores) |")
        say("|---|---:|---:|---:|---:|---:|")
        for result in results {
            let cpu = result.cpuCores.map { String(format: "%.2f", $0) } ?? "—"
            let perUnit = result.cpuCores.map { String(format: "%.1f", $0 * result.seconds / Double(requestsPerRun) * 1e6) } ?? "—"
            let sink = result.sinkMicrosecondsPerRequest.map { String(format: "%.1f", $0) } ?? "—"
            say("| \(result.label) | \(String(format: "%.0f", result.rate)) | \(perUnit) | \(sink) | \(String(format: "%.2f s", result.seconds)) | \(cpu) |")
        }
        for result in results where !result.note.isEmpty { say("\n\(result.label): \(result.note)") }
    }
}
