import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import HeraldCore
import HeraldSimulators
import HeraldStore
import NIOCore

/// Registers N APNs subscribers to one event, publishes once, and measures until all N were answered.
struct APNsFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "apns", abstract: "APNs fan-out to N subscribers.")

    @Option(help: "Subscribers of the published event.")
    var subscribers = 100_000

    @Option(help: "simulator, sink, or both.")
    var target = "both"

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Requests h2load sends to the sink.")
    var h2loadRequests = 200_000

    @Option(help: "Working directory (database, certificates, logs).")
    var directory = "/tmp/herald-bench"

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let key = P256.Signing.PrivateKey()
        let keyFile = directory + "/AuthKey_BENCHKEY01.p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let machine = Machine.describe()
        say("machine: \(machine)")

        var results: [Result] = []
        if target == "simulator" || target == "both" {
            let database = try await seed()
            var configuration = APNsSimulator.Configuration(
                teamID: "BENCHTEAM1", signingKeys: ["BENCHKEY01": key.publicKey], topics: ["com.example.bench"], certificateAuthority: authority)
            configuration.recordTokens = true
            let simulator = APNsSimulator(configuration: configuration)
            let port = try await simulator.start()
            var result = try await measure(label: "Herald → APNs simulator", port: port, database: database, authority: authority, keyFile: keyFile)
            let tokens = simulator.acceptedTokens()
            result.note = "simulator accepted \(tokens.count) requests, \(Set(tokens).count) distinct tokens (expected \(subscribers))"
            await simulator.stop()
            results.append(result)
            guard Set(tokens).count == subscribers else {
                say(result.note)
                throw ExitCode(2)
            }
        }
        if target == "sink" || target == "both" {
            let sink = try H2OSink.start(directory: directory, authority: authority)
            defer { sink.stop() }
            say("h2o sink on port \(sink.port)")
            let database = try await seed()
            var result = try await measure(label: "Herald → h2o sink", port: sink.port, database: database, authority: authority, keyFile: keyFile)
            say("Herald done; running h2load")
            let h2load = try H2Load.run(port: sink.port, requests: h2loadRequests, caFile: authority.caCertificateFile!)
            result.note = String(format: "h2load against the same sink: %.0f req/s; Herald/h2load = %.3f", h2load, result.rate / h2load)
            results.append(result)
            results.append(Result(label: "h2load → h2o sink (this machine's practical limit)", rate: h2load, seconds: Double(h2loadRequests) / h2load))
        }
        say("")
        say("| run | notifications/s | publish → last answer | Herald peak RSS | Herald CPU (cores) |")
        say("|---|---:|---:|---:|---:|")
        for result in results {
            say(result.row)
        }
        for result in results where !result.note.isEmpty { say("\n\(result.label): \(result.note)") }
    }

    /// A fresh database with `subscribers` APNs subscribers of the event `bench`.
    func seed() async throws -> String {
        let path = directory + "/bench-\(UUID().uuidString).db"
        let store = try SQLiteStore(path: path)
        let event = EventName("bench")!
        let chunk = 20_000
        for start in stride(from: 0, to: subscribers, by: chunk) {
            let registrations = (start..<min(start + chunk, subscribers)).map { index -> SubscriberRegistration in
                let hex = String(index, radix: 16)
                return SubscriberRegistration(proto: "apns", token: String(repeating: "0", count: 64 - hex.count) + hex)
            }
            _ = try await store.registerMany(registrations, subscribingTo: event, now: Int64(Date().timeIntervalSince1970))
        }
        try store.close()
        return path
    }

    /// Starts Herald against `port`, publishes once and waits until every delivery is recorded.
    func measure(label: String, port: Int, database: String, authority: SimulatorCertificateAuthority, keyFile: String) async throws -> Result {
        let config = directory + "/herald-\(port).yml"
        try """
            log:
              level: warning
            delivery:
              batch_size: 1000
              in_flight: 8000
              concurrent_jobs: 1
            providers:
              apns:
                kind: apns
                endpoint: https://127.0.0.1:\(port)
                ca_file: \(authority.caCertificateFile!)
                topic: com.example.bench
                team_id: BENCHTEAM1
                key_id: BENCHKEY01
                key_file: \(keyFile)
                max_connections: 4
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let httpPort = try freePort()
        let process = try ChildProcess.start(herald, ["serve", "--config", config, "--port", "\(httpPort)", "--database", "sqlite:\(database)"],
                                             log: directory + "/herald-\(port).log")
        defer { process.stop() }
        let base = "http://127.0.0.1:\(httpPort)"
        try await waitUntil { (try? await get(base + "/status").status) == 204 }
        say("\(label): herald ready, publishing to \(subscribers) subscribers")

        let cpuBefore = process.cpuSeconds()
        let started = ContinuousClock.now
        let publish = try await post(base + "/event/bench", form: "msg=Benchmark&data.n=1")
        guard publish == 204 else { throw ValidationError("publish answered \(publish)") }
        var done = 0
        while done < subscribers {
            try await Task.sleep(for: .milliseconds(50))
            let stats = try JSONSerialization.jsonObject(with: Data(try await get(base + "/event/bench").body.utf8)) as? [String: Any]
            done = (stats?["delivered"] as? Int ?? 0) + (stats?["failed"] as? Int ?? 0)
            if ContinuousClock.now - started > .seconds(1800) { throw ValidationError("gave up after 30 minutes at \(done)") }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cpu = process.cpuSeconds() - cpuBefore
        let stats = try JSONSerialization.jsonObject(with: Data(try await get(base + "/event/bench").body.utf8)) as? [String: Any]
        var result = Result(label: label, rate: Double(subscribers) / seconds, seconds: seconds)
        result.peakRSSMiB = process.peakRSSMiB()
        result.cpuCores = cpu / seconds
        result.failed = stats?["failed"] as? Int ?? 0
        return result
    }

    func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    func post(_ url: String, form: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<600 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ValidationError("timed out waiting for herald to start")
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
