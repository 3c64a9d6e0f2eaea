import Foundation
import HeraldSimulators
import HeraldTestSupport

/// h2o over TLS with an mruby handler that reads the body and answers 200 as the push service
/// would: a sink that costs almost nothing per request.
struct H2OSink {
    /// The shape of the sink's answers.
    enum Answer {
        /// APNs: 200 with the request's `apns-id` and no body.
        case apns
        /// FCM HTTP v1: 200 with a JSON message name.
        case fcm

        /// The mruby handler's lines, indented for the YAML block they go in.
        var handler: String {
            let answer = switch self {
            case .apns: #"[200, {"apns-id" => env["HTTP_APNS_ID"].to_s}, []]"#
            case .fcm: #"[200, {"content-type" => "application/json; charset=UTF-8"}, ['{"name":"projects/p/messages/1"}']]"#
            }
            return [
                "Proc.new do |env|",
                #"  input = env["rack.input"]"#,
                "  input.read if input",
                "  " + answer,
                "end",
            ].map { String(repeating: " ", count: 10) + $0 }.joined(separator: "\n")
        }
    }

    let process: ChildProcess
    let port: Int

    static func start(directory: String, authority: SimulatorCertificateAuthority, answer: Answer) throws -> H2OSink {
        let port = try HeraldProcess.freePort()
        let config = directory + "/h2o.conf"
        try """
            num-threads: 1
            # No cap of h2o's own on requests in progress; h2o 2.2 advertises 100 concurrent
            # streams per connection whatever this says (SETTINGS_MAX_CONCURRENT_STREAMS).
            http2-max-concurrent-requests-per-connection: 1000
            listen:
              host: 127.0.0.1
              port: \(port)
              ssl:
                certificate-file: \(authority.serverCertificateFile!)
                key-file: \(authority.serverPrivateKeyFile!)
            hosts:
              default:
                paths:
                  /:
                    mruby.handler: |
            \(answer.handler)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = try ChildProcess.start("/usr/bin/h2o", ["-c", config], log: directory + "/h2o.log")
        // Wait for the port to accept connections.
        for _ in 0..<100 {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return H2OSink(process: process, port: port) }
            usleep(100_000)
        }
        H2OSink(process: process, port: port).stop()
        throw H2OError(message: "h2o did not start; see \(directory)/h2o.log")
    }

    /// What the in-process APNs client benchmarks begin with: fresh credentials in `directory`
    /// (emptied first), the machine said, and an APNs-shaped sink started; the caller stops it.
    static func startForAPNsClients(directory: String) throws -> (credentials: APNsBenchCredentials, sink: H2OSink) {
        let credentials = try APNsBenchCredentials(directory: directory, keyID: "BENCHKEY01", fresh: true)
        say("machine: \(Machine.describe())")
        let sink = try H2OSink.start(directory: directory, authority: credentials.authority, answer: .apns)
        say("h2o sink on port \(sink.port)")
        return (credentials, sink)
    }

    /// Kills h2o and its helper processes by pid: its graceful shutdown can wait indefinitely, and
    /// its helpers outlive the master, so the master's descendants are found first, then all killed.
    func stop() {
        let master = process.process.processIdentifier
        let pids = [master] + Self.descendants(of: master)
        for pid in pids {
            kill(pid, SIGKILL)
        }
        ChildProcess.waitForExit(process.process)
    }

    /// Runs `body`, which makes `requests` requests to the sink, and returns its result with the
    /// sink's CPU time per request meanwhile, in microseconds.
    func measuringCPU<T>(requests: Int, _ body: () async throws -> T) async rethrows -> (T, microsecondsPerRequest: Double) {
        let before = cpuSeconds()
        let value = try await body()
        return (value, (cpuSeconds() - before) / Double(requests) * 1e6)
    }

    /// CPU seconds used so far by h2o and its helper processes.
    func cpuSeconds() -> Double {
        let master = process.process.processIdentifier
        return ([master] + Self.descendants(of: master)).reduce(0) { $0 + ChildProcess.cpuSeconds(of: $1) }
    }

    /// Every process whose parent chain leads to `root`, from /proc.
    static func descendants(of root: pid_t) -> [pid_t] {
        var parents: [pid_t: pid_t] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command name: state, then the parent pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
        }
        var found: [pid_t] = []
        var frontier: Set<pid_t> = [root]
        while !frontier.isEmpty {
            let children = parents.filter { frontier.contains($0.value) }.map(\.key)
            found += children
            frontier = Set(children)
        }
        return found
    }
}

struct H2OError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// h2load sending the request Herald sends (same path shape, headers and body size).
enum H2Load {
    /// The request shapes h2load can send.
    enum Shape {
        /// APNs notifications, each to another device as Herald's are: h2load reads the paths from
        /// a file, as many as requests, so that HPACK sends every path as a literal. (One device for
        /// every request, whose path HPACK then sends as a table index, measured the same rate.)
        case apns
        /// An FCM HTTP v1 `messages:send` to one registration token.
        case fcm(projectID: String)

        var body: String {
            switch self {
            case .apns:
                #"{"aps":{"alert":"Benchmark","badge":1},"n":"1"}"#
            case .fcm:
                #"{"message":{"token":"\#(FCMFanOut.token(0))","data":{"message":"Benchmark","n":"1"},"android":{"collapse_key":"bench"}}}"#
            }
        }

        var headers: [String] {
            switch self {
            case .apns:
                [
                    "apns-push-type: alert", "apns-priority: 10", "apns-topic: com.example.bench", "content-type: application/json",
                    "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIS0VZMDEifQ.eyJpc3MiOiJCRU5DSFRFQU0xIiwiaWF0IjoxNzYzNzEyMDAwfQ.c2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJl",
                    "apns-id: 123e4567-e89b-42d3-a456-426614174000",
                ]
            case .fcm:
                [
                    "content-type: application/json; charset=utf-8",
                    "authorization: Bearer ya29.c.b0AXv0zTbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbenchbench",
                ]
            }
        }

        /// h2load's arguments naming what to request.
        func target(port: Int, requests: Int) throws -> [String] {
            switch self {
            case .apns:
                // h2load takes the file's paths in turn on each connection: with as many as requests,
                // no connection repeats one.
                let uris = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-uris.txt").path
                let base = "https://127.0.0.1:\(port)/3/device/"
                var text = ""
                text.reserveCapacity(requests * (base.count + 65))
                for index in 0..<requests {
                    let hex = String(index, radix: 16)
                    text += base + String(repeating: "a", count: 64 - hex.count) + hex + "\n"
                }
                try text.write(toFile: uris, atomically: true, encoding: .utf8)
                return ["-i", uris]
            case .fcm(let projectID):
                return ["https://127.0.0.1:\(port)/v1/projects/\(projectID)/messages:send"]
            }
        }
    }

    /// Returns the measured requests per second.
    static func run(_ shape: Shape, port: Int, requests: Int, caFile: String) throws -> Double {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-body.json").path
        try shape.body.write(toFile: body, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/h2load")
        process.arguments = ["-n", "\(requests)", "-c", "4", "-m", "100", "-t", "1", "-d", body]
            + shape.headers.flatMap { ["-H", $0] }
            + (try shape.target(port: port, requests: requests))
        // A file, not a pipe: h2load's output then never blocks it, whatever its size.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("h2load.log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        ChildProcess.waitForExit(process)
        try handle.close()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // "finished in 1.23s, 162601.63 req/s, ..."
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
            let rate = line.split(separator: ",").dropFirst().first?.trimmingCharacters(in: .whitespaces).split(separator: " ").first,
            let value = Double(rate)
        else { throw H2OError(message: "cannot read h2load's output:\n\(output)") }
        return value
    }
}
