import ArgumentParser
import Foundation
import HeraldRedis
import HeraldTestSupport

/// `herald import pushd` on a generated rs/pushd database of N subscribers: the time, rate and
/// peak memory of the release binary importing into SQLite, then of a second (idempotent) run.
struct ImportPushdBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-pushd",
        abstract: "Fill a redis-server with an rs/pushd database of N subscribers and time `herald import pushd` into SQLite.")

    @Option(help: "Subscribers in the generated pushd database.")
    var subscribers = 1_000_000

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Working directory (database, configuration, logs).")
    var directory = "/tmp/herald-import-pushd"

    @Option(help: "--batch-size passed to herald import pushd.")
    var batchSize = 2_000

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        let server = try await RedisTestServer.start()
        let redis = RedisConnection(url: server.url(database: 0), timeout: .seconds(60))
        defer { Task { await redis.close(); await server.stop() } }

        let fillStart = ContinuousClock.now
        try await fill(redis)
        let fillSeconds = (ContinuousClock.now - fillStart) / .seconds(1)
        let keys = try await redis.send(["DBSIZE"]).integer ?? 0
        say("filled \(subscribers) pushd subscribers (\(keys) keys) in \(String(format: "%.1f", fillSeconds)) s")

        let config = directory + "/herald.yml"
        try "providers:\n  apns: {kind: apns, topic: com.example.app}\n  android: {kind: http}\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let arguments = [
            "import", "pushd", "--redis", "redis://127.0.0.1:\(server.port)/0", "--config", config,
            "--database", "sqlite:\(directory)/herald.db", "--batch-size", String(batchSize),
        ]
        say("")
        say("| run | wall time | subscribers/s | peak RSS | CPU (cores) |")
        say("|---|---:|---:|---:|---:|")
        for label in ["first import (inserts)", "second import (updates by id)"] {
            let log = directory + "/import-\(label.prefix(5)).log"
            let child = try ChildProcess.start(herald, arguments, log: log)
            let start = ContinuousClock.now
            var peak = 0.0
            var cpu = 0.0
            while child.process.isRunning {
                peak = max(peak, child.peakRSSMiB() ?? 0)
                cpu = max(cpu, child.cpuSeconds())
                try await Task.sleep(for: .milliseconds(250))
            }
            ChildProcess.waitForExit(child.process)
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            guard child.process.terminationStatus == 0 else {
                say("herald import pushd failed (status \(child.process.terminationStatus)); see \(log)")
                throw ExitCode.failure
            }
            say("| \(label) | \(String(format: "%.1f", seconds)) s | \(Int(Double(subscribers) / seconds)) | \(Int(peak)) MiB | \(String(format: "%.2f", cpu / seconds)) |")
            let summary = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            for line in summary.split(separator: "\n") where line.hasPrefix("subscribers:") || line.hasPrefix("subscriptions:") || line.hasPrefix("events:") {
                say("  \(line)")
            }
        }
    }

    /// Writes `subscribers` subscribers as rs/pushd does, pipelined 20,000 commands at a time: an
    /// APNs or Android token, a language, a badge, one or two subscriptions (one in three silent).
    private func fill(_ redis: RedisConnection) async throws {
        var commands: [[String]] = []
        commands.reserveCapacity(20_000)
        let created = 1_330_000_000
        for n in 0..<subscribers {
            let id = Self.id(n)
            let apns = n % 4 != 0
            let token = apns ? Self.hex(n) : "APA91b-android-token-\(n)"
            let proto = apns ? "apns" : "android"
            commands.append([
                "HSET", "subscriber:" + id, "proto", proto, "token", token, "lang", n % 3 == 0 ? "fr" : "en", "badge", String(n % 10),
                "created", String(created + n / 100), "updated", String(created + n / 50),
            ])
            commands.append(["ZADD", "subscribers", "0", id])
            commands.append(["HSET", "tokenmap", proto + ":" + token, id])
            commands.append(["ZADD", "subscriber:\(id):evts", "0", "all"])
            if n % 2 == 0 { commands.append(["ZADD", "subscriber:\(id):evts", n % 3 == 0 ? "1" : "0", "sport"]) }
            if commands.count >= 20_000 {
                _ = try await redis.pipeline(commands)
                commands.removeAll(keepingCapacity: true)
            }
        }
        commands.append(["HSET", "event:all", "created", String(created), "total", "42", "last", String(created + 1000)])
        commands.append(["HSET", "event:sport", "created", String(created), "total", "7", "last", String(created + 900)])
        commands.append(["SADD", "events", "all", "sport"])
        _ = try await redis.pipeline(commands)
    }

    /// An 11-character id, as rs/pushd drew them (here: deterministic).
    static func id(_ n: Int) -> String {
        let digits = String(n, radix: 36)
        return "P" + String(repeating: "0", count: 10 - digits.count) + digits
    }

    /// A 64-digit upper-case hex token, distinct per `n`, which Herald lower-cases.
    static func hex(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "F", count: 64 - digits.count - 1) + "E" + digits
    }
}
