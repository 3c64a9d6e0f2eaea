import Foundation

/// wrk against one Herald route: its request rate, latency and errors, read from wrk's summary
/// (shared by `herald-bench api` and `herald-bench unifiedpush`).
struct Wrk {
    let binary: String
    let threads: Int
    let connections: Int
    let seconds: Int
    /// Where each run's output is kept.
    let directory: String

    /// One route for wrk: a name for the table, a path and a Lua script (nil: a plain GET).
    struct Route {
        let name: String
        let path: String
        let script: String?
    }

    /// What wrk reported for one route.
    struct Result {
        var rate = 0.0
        var latency = "?"
        var errors = 0
    }

    /// Runs wrk on one route and reads its summary.
    func measure(base: String, route: Route) throws -> Result {
        var arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s"]
        if let script = route.script { arguments += ["-s", script] }
        arguments.append(base + route.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ChildProcess.waitForExit(process)
        try output.write(toFile: directory + "/wrk-\(route.path.replacingOccurrences(of: "/", with: "_")).txt", atomically: true, encoding: .utf8)
        var result = Result()
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), let rate = fields.last.flatMap({ Double($0) }) { result.rate = rate }
            if fields.first == "Latency", fields.count > 1 { result.latency = String(fields[1]) }
            if line.contains("Non-2xx or 3xx responses:"), let count = fields.last.flatMap({ Int($0) }) { result.errors += count }
            if line.contains("Socket errors:") { result.errors += Self.socketErrors(String(line)) }
        }
        guard result.rate > 0 else { throw BenchError("wrk reported no rate for \(route.path):\n\(output)") }
        return result
    }

    /// Sums `Socket errors: connect 0, read 0, write 0, timeout 0`.
    static func socketErrors(_ line: String) -> Int {
        line.split(separator: ",").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
    }
}
