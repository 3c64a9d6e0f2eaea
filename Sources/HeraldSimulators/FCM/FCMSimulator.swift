import Foundation
import NIOSSL

/// A faithful local imitation of FCM's HTTP v1 API and Google's OAuth token endpoint (providers.md §2), for tests,
/// benchmarks and `herald simulate fcm`.
///
/// One TLS + HTTP/2 port serves both `POST /token` (the RFC 7523 JWT-bearer grant, checking the RS256 signature
/// against the configured ``FCMTestServiceAccount``s) and `POST /v1/projects/<id>/messages:send` (bearer access
/// tokens it issued, the message rules of §2.3, device state, Google's error bodies). It injects faults from a
/// seeded generator and records what it accepted.
///
/// ```swift
/// let account = try FCMTestServiceAccount(projectID: "herald-test")
/// let simulator = FCMSimulator(configuration: .init(
///     serviceAccounts: [account], certificateAuthority: try SimulatorCertificateAuthority()))
/// let port = try await simulator.start()
/// try account.write(to: "service-account.json", tokenURI: simulator.tokenURL!)
/// ```
public final class FCMSimulator: Sendable {
    /// The configuration the simulator was created with.
    public let configuration: Configuration
    let store: FCMSimulatorStore
    private let server = SimulatorHTTP2Server()

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.store = FCMSimulatorStore(seed: configuration.seed, recordTokens: configuration.recordTokens)
    }

    /// Binds ``Configuration/host``:``Configuration/port`` and starts serving; returns the bound port.
    ///
    /// Calling it again while the simulator runs returns the same port.
    public func start() async throws -> Int {
        if let port = self.port {
            return port
        }
        let verifier = try await FCMAssertionVerifier.make(accounts: self.configuration.serviceAccounts)
        let processor = FCMRequestProcessor(configuration: self.configuration, store: self.store, verifier: verifier)
        let sslContext = try self.configuration.certificateAuthority.map { authority in
            try NIOSSLContext(configuration: authority.serverTLSConfiguration())
        }
        let registry = self.server.connections
        let logger = self.configuration.logger
        let gracePeriod = self.configuration.goAwayGracePeriodMilliseconds
        let pipeline = SimulatorHTTP2Pipeline(
            serviceName: "FCM",
            processor: processor,
            sslContext: sslContext,
            registry: registry,
            logger: logger,
            maxConcurrentStreams: self.configuration.maxConcurrentStreams
        ) { channel in
            SimulatorHTTP2Connection(
                channel: channel, registry: registry, logger: logger, goAwayGracePeriodMilliseconds: gracePeriod)
        }
        let port = try await self.server.start(
            host: self.configuration.host,
            port: self.configuration.port,
            group: self.configuration.eventLoopGroup,
            initialize: pipeline.initialize
        )
        self.configuration.logger.info(
            "FCM simulator listening",
            metadata: [
                "address": "\(self.configuration.host):\(port)",
                "tls": "\(self.configuration.certificateAuthority != nil)",
                "projects": "\(Set(self.configuration.serviceAccounts.map(\.projectID)).sorted())",
            ]
        )
        return port
    }

    /// The bound port while the simulator runs.
    public var port: Int? {
        self.server.port
    }

    /// The origin to configure as the `fcm` provider's `endpoint` (`https://127.0.0.1:<port>`), while running.
    public var endpointURL: String? {
        self.port.map { "\(self.scheme)://\(self.urlHost):\($0)" }
    }

    /// The token endpoint to write into a service account's `token_uri` (`https://127.0.0.1:<port>/token`),
    /// while running.
    public var tokenURL: String? {
        self.endpointURL.map { $0 + FCMTokenEndpoint.path }
    }

    private var scheme: String { self.configuration.certificateAuthority == nil ? "http" : "https" }
    private var urlHost: String { self.configuration.host.contains(":") ? "[\(self.configuration.host)]" : self.configuration.host }

    /// Stops listening and closes every connection.
    public func stop() async {
        if await self.server.stop() {
            self.configuration.logger.info("FCM simulator stopped")
        }
    }

    // MARK: Device state

    /// Makes `token` answer `404 UNREGISTERED` from now on (the app was uninstalled).
    public func unregister(token: String) {
        self.store.state.withLock { _ = $0.unregistered.insert(token) }
    }

    /// Makes `token` answer `403 SENDER_ID_MISMATCH` from now on (it belongs to another Firebase project).
    public func markSenderMismatch(token: String) {
        self.store.state.withLock { _ = $0.senderMismatch.insert(token) }
    }

    /// Makes `token` answer `400 INVALID_ARGUMENT` ("not a valid FCM registration token") from now on, although it
    /// is well-formed.
    public func markInvalid(token: String) {
        self.store.state.withLock { _ = $0.invalidTokens.insert(token) }
    }

    /// Forgets everything said about `token`.
    public func restore(token: String) {
        self.store.state.withLock { state in
            state.unregistered.remove(token)
            state.senderMismatch.remove(token)
            state.invalidTokens.remove(token)
        }
    }

    // MARK: Access tokens

    /// Revokes every access token issued so far: sends using them get `401 UNAUTHENTICATED`.
    public func revokeAccessTokens() {
        self.store.state.withLock { $0.accessTokens.removeAll() }
    }

    /// Makes every access token issued so far expire now: sends using them get `401 UNAUTHENTICATED`.
    public func expireAccessTokens() {
        let now = Date().timeIntervalSince1970
        self.store.state.withLock { state in
            for token in state.accessTokens.keys {
                state.accessTokens[token]?.expiresAt = now
            }
        }
    }

    // MARK: Fault injection

    /// The current random fault plan.
    public var faults: Faults {
        self.store.state.withLock { $0.faults.plan }
    }

    /// Replaces the random fault plan; takes effect for the next request.
    public func setFaults(_ faults: Faults) {
        precondition(faults.answeringRate <= 1.000_001, "fault rates must add up to at most 1")
        self.store.state.withLock { $0.faults.plan = faults }
    }

    /// Makes send request number `number` (1-based, counting every `messages:send` request the simulator
    /// receives, see ``requestCount``) get `injection` instead of ordinary processing.
    public func inject(_ injection: Injection, atRequest number: Int) {
        self.store.state.withLock { $0.faults.inject(injection, atRequest: number) }
    }

    /// Makes the next send requests get `injections`, one each, in order (before the random fault plan applies).
    public func injectNext(_ injections: [Injection]) {
        self.store.state.withLock { $0.faults.injectNext(injections) }
    }

    /// Makes the next token requests get `injections`, one each, in order; an ``Injection/error`` is answered in
    /// the OAuth form, its `status` lowercased as the `error`.
    public func injectNextTokenRequests(_ injections: [Injection]) {
        self.store.state.withLock { $0.queuedTokenAnswers.append(contentsOf: injections) }
    }

    /// Sends every open connection a `GOAWAY` (`NO_ERROR`, last stream id = the last stream it served); each
    /// connection closes once its in-flight streams are answered.
    public func sendGoAway() {
        self.server.connections.sendGoAway(debugText: nil)
    }

    /// Closes every open connection abruptly (TCP RST), without any HTTP/2 goodbye.
    public func resetConnections() {
        self.server.connections.resetAll()
    }

    // MARK: Recording

    /// `messages:send` requests received so far, whatever their outcome.
    public var requestCount: Int {
        self.store.recorder.requestCount
    }

    /// Sends answered `200` so far.
    public var acceptedCount: Int {
        self.store.recorder.acceptedCount
    }

    /// Access tokens issued so far.
    public var tokenExchangeCount: Int {
        self.store.recorder.withStatistics { $0.tokenExchanges }
    }

    /// The registration token of every accepted send, in order, duplicates kept (empty when
    /// ``Configuration/recordTokens`` is off).
    public func acceptedTokens() -> [String] {
        self.store.recorder.acceptedTokens()
    }

    /// Every accepted send with headers and body (empty unless ``Configuration/recordPayloads`` is on).
    public func accepted() -> [Accepted] {
        self.store.recorder.accepted()
    }

    /// Counters of requests, outcomes, token exchanges, connections and streams.
    public func statistics() -> Statistics {
        var statistics = self.store.recorder.statistics
        self.server.connections.fill(&statistics)
        return statistics
    }

    /// Connections currently open.
    public var openConnectionCount: Int {
        self.server.connections.openCount
    }

    /// Forgets the recorded tokens and payloads (counters are kept).
    public func clearRecords() {
        self.store.recorder.clearRecords()
    }
}
