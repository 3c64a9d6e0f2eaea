import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import HeraldCore
import HeraldSimulators
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport
import NIOCore

/// Publishes steadily for several minutes while the APNs simulator fails 10 % of requests and
/// periodically resets connections or sends GOAWAY; then checks that every (publish, subscriber)
/// pair was delivered and that Herald's memory stayed flat.
struct Soak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "soak", abstract: "Sustained publishing with faults: nothing lost, memory flat.")

    @Option(help: "Minutes of publishing.")
    var minutes = 5.0

    @Option(help: "APNs subscribers of the published event.")
    var subscribers = 1_000

    @Option(help: "Publishes per second.")
    var rate = 1.0

    @Option(help: "Fraction of requests the simulator answers with 500.")
    var errorRate = 0.1

    @Option(help: "Seconds between connection faults (alternately a reset and a GOAWAY).")
    var faultInterval = 15.0

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Working directory (database, certificates, logs).")
    var directory = "/tmp/herald-soak"

    func run() async throws {
        let credentials = try APNsBenchCredentials(directory: directory, keyID: "SOAKKEY001", fresh: true)
        let (authority, key, keyFile) = (credentials.authority, credentials.key, credentials.keyFile)
        say("machine: \(Machine.describe())")

        var simulatorConfiguration = APNsSimulator.Configuration(
            teamID: "SOAKTEAM01", signingKeys: ["SOAKKEY001": key.publicKey], topics: ["com.example.soak"], certificateAuthority: authority)
        simulatorConfiguration.recordPayloads = true
        let simulator = APNsSimulator(configuration: simulatorConfiguration)
        let simulatorPort = try await simulator.start()
        simulator.setFaults(APNsSimulator.Faults(internalServerErrorRate: errorRate))

        let database = directory + "/soak.db"
        let store = try SQLiteStore(path: database)
        let registrations = (0..<subscribers).map { index -> SubscriberRegistration in
            let hex = String(index, radix: 16)
            return SubscriberRegistration(proto: "apns", token: String(repeating: "0", count: 64 - hex.count) + hex)
        }
        _ = try await store.registerMany(registrations, subscribingTo: EventName("soak")!, now: Int64(Date().timeIntervalSince1970))
        try store.close()

        let config = directory + "/herald.yml"
        try """
            log:
              level: warning
            delivery:
              retry_delay: 0.2
              max_retry_delay: 2
              max_attempts: 30
            providers:
              apns:
                kind: apns
                endpoint: https://127.0.0.1:\(simulatorPort)
                ca_file: \(authority.caCertificateFile!)
                topic: com.example.soak
                team_id: SOAKTEAM01
                key_id: SOAKKEY001
                key_file: \(keyFile)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let httpPort = try HeraldProcess.freePort()
        let process = try ChildProcess.start(herald, ["serve", "--config", config, "--port", "\(httpPort)", "--database", "sqlite:\(database)"],
                                             log: directory + "/herald.log")
        defer { process.stop() }
        let base = "http://127.0.0.1:\(httpPort)"
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get(base + "/status").status) == 204 }

        let started = ContinuousClock.now
        let duration = Duration.milliseconds(Int64(minutes * 60_000))
        var published = 0
        var refused = 0
        var samples: [(seconds: Int, rssMiB: Double)] = []
        var nextFault = ContinuousClock.now + .milliseconds(Int64(faultInterval * 1000))
        var nextSample = ContinuousClock.now
        var faults = 0
        say("publishing for \(minutes) min at \(rate)/s to \(subscribers) subscribers, \(Int(errorRate * 100)) % 500s, a connection fault every \(faultInterval) s")
        while ContinuousClock.now - started < duration {
            let status = try await client.post(base + "/event/soak", form: "msg=Soak&data.seq=\(published)")
            if status == 204 {
                published += 1
            } else if status == 503 {
                refused += 1  // back-pressure: the same publish is tried again next round
            } else {
                throw ValidationError("publish answered \(status)")
            }
            let now = ContinuousClock.now
            if now >= nextFault {
                if faults % 2 == 0 { simulator.resetConnections() } else { simulator.sendGoAway() }
                faults += 1
                nextFault = now + .milliseconds(Int64(faultInterval * 1000))
            }
            if now >= nextSample, let rss = process.rssMiB() {
                samples.append((Int((now - started).components.seconds), rss))
                nextSample = now + .seconds(10)
            }
            try await Task.sleep(for: .milliseconds(Int64(1000 / rate)))
        }
        simulator.setFaults(.none)
        let expected = published * subscribers
        say("published \(published) events (\(expected) notifications); \(refused) publishes refused with 503; \(faults) connection faults; waiting for delivery")
        let drainStarted = ContinuousClock.now
        var distinct = 0
        while ContinuousClock.now - drainStarted < .seconds(600) {
            // Counting is cheap; the distinct pairs are only worked out once enough arrived.
            if simulator.acceptedCount >= expected {
                distinct = Set(simulator.accepted().map { "\($0.token)|\(Self.sequence(in: $0.body))" }).count
                if distinct >= expected { break }
            }
            try await Task.sleep(for: .seconds(2))
        }
        let accepted = simulator.accepted().count
        let rss = samples.map(\.rssMiB)
        say("")
        say("| measure | value |")
        say("|---|---:|")
        say("| duration of publishing | \(String(format: "%.1f", minutes)) min |")
        say("| notifications expected | \(expected) |")
        say("| distinct (publish, token) pairs accepted by the simulator | \(distinct) |")
        say("| duplicates (accepted − distinct) | \(accepted - distinct) |")
        say("| simulator requests (with faults) | \(simulator.requestCount) |")
        if let first = rss.first, let last = rss.last, let peak = rss.max() {
            say("| Herald RSS first / last / peak sample | \(String(format: "%.0f / %.0f / %.0f MiB", first, last, peak)) |")
        }
        say("")
        say("RSS samples (s → MiB): " + samples.map { "\($0.seconds)→\(String(format: "%.0f", $0.rssMiB))" }.joined(separator: " "))
        await simulator.stop()
        guard distinct == expected else {
            say("LOST: \(expected - distinct) notifications")
            throw ExitCode(2)
        }
    }

    /// The `seq` data key of an APNs payload (`data.*` keys are top-level in the payload).
    static func sequence(in body: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return "?" }
        return object["seq"] as? String ?? "?"
    }
}

/// The few HTTP calls the benchmarks make to Herald.
struct BenchClient {
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
