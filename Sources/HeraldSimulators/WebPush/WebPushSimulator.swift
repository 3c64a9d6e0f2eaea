import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import Synchronization

/// A faithful local imitation of a Web Push service (RFC 8030, RFC 8291, RFC 8292), for tests, benchmarks and
/// `herald simulate webpush`.
///
/// It serves HTTPS (HTTP/1.1) with a certificate from a ``SimulatorCertificateAuthority``, issues browser-like
/// subscriptions and keeps their private keys, and checks every push as providers.md §3.6 says: the subscription
/// (404 unknown, 410 expired), VAPID (401 missing, 403 invalid, with `aud` = its own origin), `TTL`, `Urgency` and
/// `Topic` (400), the body size (413) and its `aes128gcm` encryption, which it decrypts (400 when it cannot). An
/// accepted push gets `201` with `Location: /m/<id>` and is recorded, decrypted. Faults come from a seeded
/// generator or a script.
///
/// ```swift
/// let simulator = WebPushSimulator(configuration: .init(certificateAuthority: try SimulatorCertificateAuthority()))
/// let port = try await simulator.start()
/// let subscription = try simulator.makeSubscription()   // register subscription.json with Herald
/// ```
///
/// Besides `POST /push/<id>` it serves two helpers for people trying Herald by hand: `POST /subscriptions` issues a
/// subscription and answers its JSON, and `GET /subscriptions/<id>/messages` answers the decrypted messages that
/// subscription received, as a JSON array of strings.
public final class WebPushSimulator: Sendable {
    /// The configuration the simulator was created with.
    public let configuration: Configuration
    let state: Mutex<WebPushSimulatorState>
    let verifier = WebPushVAPIDVerifier()
    private let server = Mutex<(port: Int, task: Task<Void, Never>)?>(nil)

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.state = Mutex(WebPushSimulatorState(seed: configuration.seed))
    }

    /// Binds ``Configuration/host``:``Configuration/port`` and starts serving; returns the bound port.
    ///
    /// Calling it again while the simulator runs returns the same port.
    public func start() async throws -> Int {
        if let port { return port }
        let tls = try configuration.certificateAuthority.serverTLSConfiguration(applicationProtocols: ["http/1.1"])
        var serverLogger = configuration.logger
        // Hummingbird logs every connection error; a push client closing its idle connections is not news.
        serverLogger.logLevel = max(serverLogger.logLevel, .warning)
        let (started, continuation) = AsyncStream<Result<Int, any Error>>.makeStream()
        let application = Application(
            router: makeRouter(),
            server: try .tls(.http1(), tlsConfiguration: tls),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in continuation.yield(.success(channel.localAddress?.port ?? 0)) },
            logger: serverLogger
        )
        let task = Task {
            do {
                try await application.run()
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        var iterator = started.makeAsyncIterator()
        guard let result = await iterator.next() else {
            throw WebPushSimulatorError.notStarted
        }
        let port = try result.get()
        server.withLock { $0 = (port, task) }
        configuration.logger.info("Web Push simulator listening", metadata: ["origin": "https://\(configuration.host):\(port)"])
        return port
    }

    /// The bound port while the simulator runs.
    public var port: Int? { server.withLock { $0?.port } }

    /// The simulator's origin while it runs (`https://127.0.0.1:<port>`): the VAPID `aud` it expects.
    public var origin: String? { port.map { "https://\(Self.urlHost(configuration.host)):\($0)" } }

    /// Stops listening and closes every connection.
    public func stop() async {
        let running = server.withLock { server in
            defer { server = nil }
            return server
        }
        guard let running else { return }
        running.task.cancel()
        await running.task.value
        configuration.logger.info("Web Push simulator stopped")
    }

    // MARK: Subscriptions

    /// Creates a subscription as a browser's `PushManager.subscribe()` does: fresh keys, an endpoint on this
    /// simulator. With `applicationServerKey` (the VAPID public key, base64url), pushes to it must carry VAPID signed
    /// with exactly that key (RFC 8292 §4), else `403`.
    ///
    /// - Throws: ``WebPushSimulatorError`` when the simulator is not running (the endpoint needs its port) or the
    ///   key is not a base64url uncompressed P-256 point.
    public func makeSubscription(applicationServerKey: String? = nil) throws -> Subscription {
        guard let origin else { throw WebPushSimulatorError.notRunning }
        var restriction: [UInt8]?
        if let applicationServerKey {
            guard let key = WebPushBase64URL.decode(applicationServerKey), key.count == 65, key[0] == 0x04 else {
                throw WebPushSimulatorError.invalidApplicationServerKey
            }
            restriction = key
        }
        let keys = WebPushUserAgentKeys()
        var idBytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in idBytes.indices { idBytes[index] = generator.next() }
        let id = WebPushBase64URL.encode(idBytes)
        let subscription = Subscription(id: id, endpoint: "\(origin)/push/\(id)", p256dh: keys.p256dh, auth: keys.auth)
        state.withLock { $0.subscriptions[id] = .init(subscription: subscription, keys: keys, applicationServerKey: restriction) }
        return subscription
    }

    /// Makes pushes to `subscription` answer ``Configuration/expiredStatus`` (410) from now on, as after the user
    /// unsubscribed or the browser expired it.
    public func expire(_ subscription: Subscription) {
        state.withLock { $0.subscriptions[subscription.id]?.expired = true }
    }

    /// Forgets `subscription`: pushes to it answer `404`, as for an endpoint the service never issued.
    public func remove(_ subscription: Subscription) {
        state.withLock { _ = $0.subscriptions.removeValue(forKey: subscription.id) }
    }

    // MARK: Fault injection

    /// The current random fault plan.
    public var faults: Faults { state.withLock { $0.faults.plan } }

    /// Replaces the random fault plan; takes effect for the next request.
    public func setFaults(_ faults: Faults) {
        precondition(faults.answeringRate <= 1.000_001, "fault rates must add up to at most 1")
        state.withLock { $0.faults.plan = faults }
    }

    /// Makes the next push requests get `injections`, one each, in order (before the random fault plan applies).
    public func injectNext(_ injections: [Injection]) {
        state.withLock { $0.faults.injectNext(injections) }
    }

    // MARK: Recording

    /// Push requests received so far, whatever their outcome.
    public var requestCount: Int { state.withLock { $0.requests } }

    /// Push requests answered `201` so far.
    public var acceptedCount: Int { state.withLock { $0.acceptedCount } }

    /// Every accepted push, decrypted, in order (empty when ``Configuration/recordMessages`` is off).
    public func accepted() -> [Accepted] { state.withLock { $0.accepted } }

    /// The decrypted texts `subscription` received, in order.
    public func messages(for subscription: Subscription) -> [String] {
        state.withLock { $0.accepted.filter { $0.subscriptionID == subscription.id }.map(\.text) }
    }

    /// The decrypted texts the subscription with `endpoint` received, in order.
    public func messages(forEndpoint endpoint: String) -> [String] {
        state.withLock { $0.accepted.filter { $0.endpoint == endpoint }.map(\.text) }
    }

    /// Every refused push request, in order, with the status answered and why.
    public func rejections() -> [Rejection] { state.withLock { $0.rejections } }

    /// Forgets the recorded messages and rejections (counters are kept).
    public func clearRecords() {
        state.withLock { state in
            state.accepted.removeAll()
            state.rejections.removeAll()
        }
    }

    /// `host` as it appears in a URL (IPv6 literals in brackets).
    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
