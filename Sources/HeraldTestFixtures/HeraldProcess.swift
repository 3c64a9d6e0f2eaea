import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// The `herald` binary run as a child process, as an operator runs it.
public final class HeraldProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object, one call at a time.
    private let process: Process
    /// The file collecting the child's standard error.
    public let stderrFile: String
    /// The HTTP port it was told to use.
    public let port: Int

    private init(process: Process, stderrFile: String, port: Int) {
        self.process = process
        self.stderrFile = stderrFile
        self.port = port
    }

    /// The built `herald` executable, next to the test bundle.
    public static var executable: String {
        let besideRunner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("herald").path
        if FileManager.default.isExecutableFile(atPath: besideRunner) { return besideRunner }
        return FileManager.default.currentDirectoryPath + "/.build/debug/herald"
    }

    /// Runs `herald` with `arguments` to completion; returns its exit status and standard error.
    ///
    /// The wait happens on a thread of its own: blocking one of the few cooperative threads while a
    /// process runs would stall every other test in the meantime.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stderr: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(arguments, environment: environment) })
            }
        }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, stderr: String) {
        let (status, _, stderr) = try runBlocking(arguments, environment: environment, keepingOutput: false)
        return (status, stderr)
    }

    /// Runs `herald` with `arguments` to completion; returns its exit status, standard output and standard error
    /// (for commands that print a result, such as `herald import pushd`'s summary).
    public static func runCapturingOutput(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(arguments, environment: environment, keepingOutput: true) })
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], environment: [String: String], keepingOutput: Bool
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardError = pipe
        // Standard output goes to a file, not a second pipe: reading one pipe to its end while the
        // child fills the other would deadlock.
        let outputFile = (NSTemporaryDirectory() as NSString).appendingPathComponent("herald-stdout-\(UUID().uuidString)")
        if keepingOutput {
            _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        defer { if keepingOutput { try? FileManager.default.removeItem(atPath: outputFile) } }
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = keepingOutput ? ((try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "") : ""
        return (process.terminationStatus, output, String(decoding: data, as: UTF8.self))
    }

    /// Starts `herald serve` with `arguments` on `port` and waits until `GET /status` answers 204
    /// (or, when given, until `ready` says so: a server on TLS needs a client that trusts it).
    public static func start(
        _ arguments: [String], port: Int, directory: String, environment: [String: String] = [:],
        ready: (@Sendable (HeraldProcess) async throws -> Bool)? = nil
    ) async throws -> HeraldProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--port", "\(port)"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let stderrFile = (directory as NSString).appendingPathComponent("herald-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrFile))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let child = HeraldProcess(process: process, stderrFile: stderrFile, port: port)
        try await eventually(limit: .seconds(60)) {
            guard process.isRunning else { throw ProcessExited(log: child.log) }
            // Another process on the port would answer for this one (a CI run once read two nodes'
            // metrics from the same process): only the child's own listener counts.
            guard child.ownsListener() else { return false }
            if let ready { return (try? await ready(child)) == true }
            return (try? await child.status()) == 204
        }
        return child
    }

    /// Whether the child holds the socket listening on its port (always true where `/proc` is
    /// not there to ask).
    private func ownsListener() -> Bool {
        let tables = ["/proc/net/tcp", "/proc/net/tcp6"].compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
        guard !tables.isEmpty else { return true }
        // Lines read `sl local_address rem_address st ... inode`; a listener is in state 0A.
        let portSuffix = ":" + String(format: "%04X", port)
        let inodes = tables.flatMap { $0.split(separator: "\n").dropFirst() }.compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(portSuffix), fields[3] == "0A" else { return nil }
            return "socket:[\(fields[9])]"
        }
        guard !inodes.isEmpty else { return false }
        let descriptors = "/proc/\(process.processIdentifier)/fd"
        let open = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
        return open.contains { inodes.contains((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)")) ?? "") }
    }

    /// Starts `herald` with `arguments` (any command) without waiting for anything; `port` is not used by it.
    public static func spawn(_ arguments: [String], directory: String) throws -> HeraldProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let stderrFile = (directory as NSString).appendingPathComponent("herald-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrFile))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return HeraldProcess(process: process, stderrFile: stderrFile, port: 0)
    }

    /// What the child wrote to standard error so far.
    public var log: String { (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "" }

    /// `GET /status`'s status code.
    public func status() async throws -> Int {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/status"), timeout: .seconds(5))
        return Int(response.status.code)
    }

    /// Sends a signal (`SIGKILL` for a crash, `SIGTERM` for a graceful stop).
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the child to exit and returns its status.
    public func waitForExit() async -> Int32 {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        return process.terminationStatus
    }

    /// A free TCP port on loopback for a child to bind, chosen below the kernel's ephemeral range.
    ///
    /// A port from `bind(0)` comes from the ephemeral range, where any connection's local port
    /// or another listener's `bind(0)` may take it between its release here and the child's bind
    /// (a CI run failed so: "Address already in use"). Below that range only another explicit
    /// choice can collide, and each choice is checked by binding it.
    ///
    /// A port is handed out once per test process: two tests that chose the same one before
    /// either child bound it would otherwise both start, and one would talk to the other's child.
    public static func freePort() throws -> Int {
        let ephemeralStart = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        if ephemeralStart > 11_000 {
            for _ in 0..<500 {
                let port = Int.random(in: 10_000..<ephemeralStart)
                guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
                if let bound = try? bindLoopback(port: port) { return bound }
            }
        }
        return try bindLoopback(port: 0)
    }

    /// Every port ``freePort()`` chose in this process.
    private static let handedOut = Mutex<Set<Int>>([])

    /// Binds a TCP socket to `port` on loopback (0: the kernel's choice), releases it, and
    /// returns the port it had.
    private static func bindLoopback(port: Int) throws -> Int {
        let reserved = try ReservedPort(port: port)
        reserved.close()
        return reserved.port
    }
}

/// The child exited before it was ready.
public struct ProcessExited: Error, CustomStringConvertible {
    /// Its standard error.
    public var log: String

    /// Creates the error with the child's output.
    public init(log: String) {
        self.log = log
    }
    public var description: String { "herald exited early:\n\(log)" }
}
