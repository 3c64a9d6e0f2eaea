import ArgumentParser
import Foundation
import HeraldTestSupport

/// `herald-bench api`: the HTTP API's request rate under wrk, each route as a ratio to the
/// static `GET /crossdomain.xml` of the same Herald in the same run (issue 20), beside the floor
/// of a write: the same `POST /subscribers` refused before anything is written (issue 44).
///
/// The static route is measured first and last; every other route is divided by the mean of
/// the two, so a machine that gets busier during the run shows as a gap between them.
struct APIBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Start Herald on SQLite (or PostgreSQL) and measure the static route, POST /subscribers, POST /event/<name> and GET /status with wrk.")

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "The wrk binary.")
    var wrk = "/usr/bin/wrk"

    @Option(help: "Working directory (database, configuration, Lua scripts, logs).")
    var directory = "/tmp/herald-api-bench"

    @Option(help: "wrk threads (-t).")
    var threads = 1

    @Option(help: "wrk connections (-c).")
    var connections = 32

    @Option(help: "Seconds per route (-d).")
    var seconds = 10

    @Option(help: "Rounds over every route (each round starts and ends with the static route).")
    var rounds = 1

    @Option(help: "sqlite (a file in --directory) or postgres (a fresh database on the tests' PostgreSQL server, started if needed).")
    var database = "sqlite"

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        say("wrk -t\(threads) -c\(connections) -d\(seconds)s, herald \(herald)")

        let config = directory + "/herald.yml"
        try "log:\n  level: warning\n".write(toFile: config, atomically: true, encoding: .utf8)
        let port = try HeraldProcess.freePort()
        let base = "http://127.0.0.1:\(port)"
        let location: String
        switch database {
        case "sqlite":
            location = "sqlite:\(directory)/herald.db"
        case "postgres":
            let server = try await PostgresTestServer.shared()
            location = server.url(database: try await server.createDatabase())
        default:
            throw ValidationError("--database is sqlite or postgres")
        }
        say("database: \(database)")
        let child = try ChildProcess.start(
            herald, ["serve", "--config", config, "--port", "\(port)", "--database", location], log: directory + "/herald.log")
        defer { child.stop() }
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get(base + "/status").status) == 204 }
        // Let start-up work (migrations, first claims) settle before the idle figure.
        try await Task.sleep(for: .seconds(2))
        say("herald ready (pid \(child.process.processIdentifier)); idle RSS \(String(format: "%.1f", child.rssMiB() ?? 0)) MiB")

        for round in 1...rounds {
            let routes = try scripts(round: round)
            var rates: [(name: String, result: Wrk.Result)] = []
            let wrk = Wrk(binary: self.wrk, threads: threads, connections: connections, seconds: seconds, directory: directory)
            let first = try wrk.measure(base: base, route: routes.staticRoute)
            for route in [routes.refused, routes.subscribers, routes.publish, routes.status] {
                rates.append((route.name, try wrk.measure(base: base, route: route)))
            }
            let last = try wrk.measure(base: base, route: routes.staticRoute)
            let yardstick = (first.rate + last.rate) / 2
            say("")
            say("round \(round): static route \(Int(first.rate))/s before, \(Int(last.rate))/s after (yardstick: their mean, \(Int(yardstick))/s)")
            say("| route | requests/s | ratio to static | mean latency | non-2xx |")
            say("|---|---:|---:|---:|---:|")
            say("| GET /crossdomain.xml | \(Int(yardstick)) | 1.00 | \(first.latency) / \(last.latency) | \(first.errors + last.errors) |")
            for (name, result) in rates {
                say("| \(name) | \(Int(result.rate)) | \(String(format: "%.2f", result.rate / yardstick)) | \(result.latency) | \(result.errors) |")
            }
        }
        say("")
        say("herald RSS after the run: \(String(format: "%.1f", child.rssMiB() ?? 0)) MiB (peak \(String(format: "%.1f", child.peakRSSMiB() ?? 0)) MiB)")
    }

    /// The four routes; POST bodies come from Lua scripts, registrations with a new webhook
    /// URL per request (one wrk thread per Lua state, so the counter is distinct per thread and
    /// the thread's id keeps threads apart).
    private func scripts(round: Int) throws -> (
        staticRoute: Wrk.Route, refused: Wrk.Route, subscribers: Wrk.Route, publish: Wrk.Route, status: Wrk.Route
    ) {
        // The floor of a write (issue 44): the same POST, refused before anything is written (a
        // token the provider does not take), so it costs the request and none of the commit.
        let refused = directory + "/refused.lua"
        try """
            wrk.method = "POST"
            wrk.body = "proto=http&token=not-a-url"
            wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
            """.write(toFile: refused, atomically: true, encoding: .utf8)
        let subscribers = directory + "/subscribers-\(round).lua"
        try """
            local n = 0
            local thread_id = 0
            local counter = 0
            function setup(thread)
              counter = counter + 1
              thread:set("thread_id", counter)
            end
            request = function()
              n = n + 1
              local body = "proto=http&token=https%3A%2F%2Fhooks.example.com%2Fr\(round)%2Ft" .. thread_id .. "%2F" .. n
              return wrk.format("POST", "/subscribers", {["Content-Type"] = "application/x-www-form-urlencoded"}, body)
            end
            """.write(toFile: subscribers, atomically: true, encoding: .utf8)
        let publish = directory + "/publish.lua"
        try """
            wrk.method = "POST"
            wrk.body = "msg=hello"
            wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
            """.write(toFile: publish, atomically: true, encoding: .utf8)
        return (
            Wrk.Route(name: "GET /crossdomain.xml", path: "/crossdomain.xml", script: nil),
            Wrk.Route(name: "POST /subscribers refused (400, the floor: no write)", path: "/subscribers", script: refused),
            Wrk.Route(name: "POST /subscribers (new webhook each)", path: "/subscribers", script: subscribers),
            Wrk.Route(name: "POST /event/bench (no subscribers)", path: "/event/bench", script: publish),
            Wrk.Route(name: "GET /status", path: "/status", script: nil)
        )
    }
}
