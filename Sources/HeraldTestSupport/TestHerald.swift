import AsyncHTTPClient
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldRuntime
import HeraldServer
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// A Herald server running in this process on free loopback ports, with its own temporary
/// SQLite database, driven through real sockets.
public final class TestHerald: Sendable {
    /// The HTTP port.
    public let port: Int
    /// The UDP port, when `server.udp` is configured.
    public let udpPort: Int?
    /// The port of every front-end listener that reported one, by its name (`udp`,
    /// `choominator.registration`, ...).
    public let frontEndPorts: [String: Int]
    /// The temporary directory holding the database and configuration.
    public let directory: String
    /// The running application (its store can be inspected by tests).
    public let application: HeraldApplication
    private let group: ServiceGroup
    private let finished: Task<Void, any Error>

    private init(
        port: Int, frontEndPorts: [String: Int], directory: String, application: HeraldApplication, group: ServiceGroup,
        finished: Task<Void, any Error>
    ) {
        self.port = port
        self.udpPort = frontEndPorts["udp"]
        self.frontEndPorts = frontEndPorts
        self.directory = directory
        self.application = application
        self.group = group
        self.finished = finished
    }

    /// Starts a server from a YAML configuration. The database defaults to a file in a fresh
    /// temporary directory; `server.http.port`, `server.udp.port` and the ports of
    /// `compat.choominator` and `compat.apns_ms`, and the binds of `compat.push2mob`, are replaced by free ports (on 127.0.0.1). It returns once the HTTP port
    /// and every configured front-end listener are bound, plus any `listeners` named.
    public static func start(
        yaml: String = "", directory: String? = nil, logLevel: Logger.Level = .warning, listeners: Set<String> = []
    ) async throws -> TestHerald {
        let directory = directory ?? TestHerald.makeTemporaryDirectory()
        let configFile = (directory as NSString).appendingPathComponent("herald.yml")
        try yaml.write(toFile: configFile, atomically: true, encoding: .utf8)
        var configuration = try ConfigurationLoader(kinds: HeraldApplication.standardKinds).load(
            file: configFile, environment: [:],
            overrides: ConfigurationOverrides(port: nil, database: yaml.contains("database:") ? nil : "sqlite:\(directory)/herald.db", logLevel: nil)
        ).configuration
        configuration.server.http.host = "127.0.0.1"
        configuration.server.http.port = 0
        if !yaml.contains("header_timeout") {
            // Test clients reuse kept-alive connections, which the server closes once idle for the
            // header timeout; a request sent just as that happens is reset (HTTP/1.1's own race).
            // A loaded machine's pauses between a test's requests must not run into it.
            configuration.server.headerTimeout = .seconds(300)
        }
        var expected = listeners
        if configuration.server.udp != nil {
            configuration.server.udp?.host = "127.0.0.1"
            configuration.server.udp?.port = 0
            expected.insert("udp")
        }
        if let choominator = configuration.compat.choominator {
            // Port 0 passes the front-end although the loader refuses it in a file.
            var values = choominator.values
            values["host"] = .scalar("127.0.0.1")
            values["registration_port"] = .scalar("0")
            values["notification_port"] = .scalar("0")
            configuration.compat.choominator = ConfigSection(path: choominator.path, values: values)
            expected.formUnion(["choominator.registration", "choominator.notification"])
        }
        if let apnsMS = configuration.compat.apnsMS {
            var values = apnsMS.values
            values["host"] = .scalar("127.0.0.1")
            values["port"] = .scalar("0")
            configuration.compat.apnsMS = ConfigSection(path: apnsMS.path, values: values)
            expected.insert("apns_ms")
        }
        if let unifiedPush = configuration.unifiedPush {
            // A port chosen now rather than by the kernel: the endpoint URLs and VAPID's audience name it.
            var values = unifiedPush.values
            let port = try HeraldProcess.freePort()
            values["host"] = .scalar("127.0.0.1")
            values["port"] = .scalar(String(port))
            if values["base_url"] == nil { values["base_url"] = .scalar("http://127.0.0.1:\(port)") }
            configuration.unifiedPush = ConfigSection(path: unifiedPush.path, values: values)
            expected.insert("unifiedpush")
        }
        if let push2mob = configuration.compat.push2mob {
            // libzmq picks a free port for `*`; the front-end reports it from ZMQ_LAST_ENDPOINT.
            var values = push2mob.values
            for (key, listener) in [("apns", "push2mob.apns"), ("gcm", "push2mob.gcm")] where values["\(key)_provider"] != nil {
                values["\(key)_bind"] = .scalar("tcp://127.0.0.1:*")
                expected.insert(listener)
            }
            configuration.compat.push2mob = ConfigSection(path: push2mob.path, values: values)
        }
        var logger = Logger(label: "herald-test")
        logger.logLevel = logLevel

        let (httpPorts, httpContinuation) = AsyncStream<Int>.makeStream()
        let (frontEndPorts, frontEndContinuation) = AsyncStream<(String, Int)>.makeStream()
        var bound = HeraldApplication.BoundAddresses()
        bound.http = { httpContinuation.yield($0) }
        bound.frontEnd = { listener, port in frontEndContinuation.yield((listener, port)) }
        let application = try await HeraldApplication(configuration: configuration, logger: logger, bound: bound)
        let group = ServiceGroup(configuration: .init(services: application.services.map { .init(service: $0) }, logger: logger))
        let finished = Task { try await application.runAndClose { try await group.run() } }
        // A server that stops before binding (a port taken) must not leave the waits below hanging.
        Task {
            _ = try? await finished.value
            httpContinuation.finish()
            frontEndContinuation.finish()
        }
        var port = 0
        for await value in httpPorts {
            port = value
            break
        }
        var ports: [String: Int] = [:]
        if !expected.isEmpty {
            for await (listener, port) in frontEndPorts {
                ports[listener] = port
                if expected.isSubset(of: ports.keys) { break }
            }
        }
        if port == 0 || !expected.isSubset(of: ports.keys) {
            _ = try await finished.value
            throw ProcessExited(log: "the server stopped before binding its ports")
        }
        return TestHerald(port: port, frontEndPorts: ports, directory: directory, application: application, group: group, finished: finished)
    }

    /// A new empty temporary directory, removed with everything in it when the process exits
    /// (``TemporaryDirectory/make()``).
    public static func makeTemporaryDirectory() -> String {
        TemporaryDirectory.make()
    }

    /// The base URL.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends a request and reads the whole answer.
    public func request(
        _ method: HTTPMethod, _ path: String, form: String? = nil, json: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        } else if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 24)
        return TestResponse(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }

    /// Stops the server gracefully and waits until it has released everything.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await finished.value
    }
}

/// A whole HTTP answer.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers.
    public var headers: HTTPHeaders
    /// The body as text.
    public var body: String

    /// The first value of a header.
    public func header(_ name: String) -> String? { headers.first(name: name) }
}
