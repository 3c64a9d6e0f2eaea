import Foundation
import HeraldRedis

/// A real `redis-server` (Debian's `redis-server` package) on a free loopback port, for the tests; nothing is
/// saved to disk.
// `@unchecked Sendable`: after `start` the process is only read (`isRunning`) and terminated, which Foundation's
// `Process` does under its own lock, as `HeraldProcess` relies on too; every other property is immutable.
public final class RedisTestServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    /// The password it requires, if any.
    public let password: String?
    private let process: Process

    private init(port: Int, password: String?, process: Process) {
        self.port = port
        self.password = password
        self.process = process
    }

    /// Starts a server (on `port`, or a free one) and waits until it answers `PING`.
    public static func start(port: Int? = nil, password: String? = nil) async throws -> RedisTestServer {
        let port = try port ?? HeraldProcess.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable())
        var arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"]
        if let password { arguments += ["--requirepass", password] }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = RedisTestServer(port: port, password: password, process: process)
        let probe = RedisConnection(url: server.url(), timeout: .seconds(1))
        defer { Task { await probe.close() } }
        try await eventually(limit: .seconds(30)) {
            guard process.isRunning else { throw RedisServerExited() }
            return (try? await probe.send(["PING"])) == .status("PONG")
        }
        return server
    }

    /// `redis://127.0.0.1:<port>/<database>`, with the password when there is one.
    public func url(database: Int = 0) -> RedisURL {
        RedisURL(host: "127.0.0.1", port: port, database: database, password: password)
    }

    /// Stops the server and waits for it to exit.
    public func stop() async {
        guard process.isRunning else { return }
        // SIGKILL: a child spawned from the test process may inherit a signal mask that blocks SIGTERM, and a
        // server that saves nothing loses nothing by it.
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
    }

    private static func executable() throws -> String {
        for candidate in ["/usr/bin/redis-server", "/usr/local/bin/redis-server"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw RedisServerExited()
    }
}

/// `redis-server` is missing or stopped before answering (`scripts/bootstrap` installs it).
public struct RedisServerExited: Error, CustomStringConvertible {
    public var description: String { "redis-server did not start (is Debian's redis-server installed? scripts/bootstrap installs it)" }
}
