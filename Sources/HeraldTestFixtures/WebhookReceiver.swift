import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A real HTTP(S) server that records every request it receives, for webhook tests.
public final class WebhookReceiver: Sendable {
    /// One received request.
    public struct Received: Sendable {
        /// The request path.
        public var path: String
        /// The request method.
        public var method: String
        /// The request headers.
        public var headers: HTTPFields
        /// The body as text.
        public var body: String
    }

    /// Decides the status to answer (and a delay before answering) for each request.
    public typealias Behaviour = @Sendable (Received) async -> HTTPResponse.Status

    private let received = Mutex<[Received]>([])
    private let shutdown = Mutex<ServiceGroup?>(nil)
    /// The port it listens on.
    public let port: Int
    /// `http` or `https`.
    public let scheme: String

    private init(port: Int, scheme: String) {
        self.port = port
        self.scheme = scheme
    }

    /// Starts a receiver on a free loopback port; `tls` makes it HTTPS.
    public static func start(tls: TLSConfiguration? = nil, behaviour: @escaping Behaviour = { _ in .ok }) async throws -> WebhookReceiver {
        try await start(tls: tls, responder: { request in (await behaviour(request), HTTPFields()) })
    }

    /// Starts a receiver whose answers carry headers too (`Retry-After`, ...).
    public static func start(
        tls: TLSConfiguration? = nil, responder: @escaping @Sendable (Received) async -> (HTTPResponse.Status, HTTPFields)
    ) async throws -> WebhookReceiver {
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let box = Mutex<WebhookReceiver?>(nil)
        let router = Router()
        router.on("**", method: .post) { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 22)
            let item = Received(path: request.uri.path, method: "POST", headers: request.headers, body: String(buffer: body))
            let (status, headers) = await responder(item)
            box.withLock { $0 }?.received.withLock { $0.append(item) }
            return Response(status: status, headers: headers)
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .warning
        let server: HTTPServerBuilder = try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1()
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        Task { try await group.run() }
        var port = 0
        for await value in portStream {
            port = value
            break
        }
        let receiver = WebhookReceiver(port: port, scheme: tls == nil ? "http" : "https")
        box.withLock { $0 = receiver }
        receiver.shutdown.withLock { $0 = group }
        return receiver
    }

    /// The URL of `path` on this receiver.
    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Everything received so far.
    public var requests: [Received] { received.withLock { $0 } }

    /// The number of requests received so far.
    public var count: Int { received.withLock { $0.count } }

    /// Waits until at least `count` requests arrived; gives up after `limit` so a broken test cannot hang.
    @discardableResult
    public func waitFor(count: Int, limit: Duration = .seconds(60)) async throws -> [Received] {
        try await eventually(limit: limit) { self.count >= count }
        return requests
    }

    /// Stops the server.
    public func stop() async {
        await shutdown.withLock { $0 }?.triggerGracefulShutdown()
    }
}

/// Polls `condition` until it holds; throws after `limit` (a hang guard, not a timing assertion).
public func eventually(limit: Duration = .seconds(30), _ condition: @Sendable () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    if try await condition() { return }
    throw WaitTimedOut()
}

/// `eventually` gave up.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var description: String { "condition not met in time" }
}
