import NIOSSL

/// A faithful local imitation of the APNs HTTP/2 provider API (providers.md §1), for tests, benchmarks and
/// `herald simulate apns`.
///
/// It validates requests in the order of §1.9, authenticates with ES256 provider tokens or TLS client certificates,
/// advertises and enforces `SETTINGS_MAX_CONCURRENT_STREAMS` as APNs does (1 until the first valid token, then
/// ``Configuration/authenticatedMaxConcurrentStreams``, counted from the client's acknowledgement of the raise; a
/// stream over the limit ends the connection with `GOAWAY PROTOCOL_ERROR`), keeps device state (unregistered and bad
/// tokens), injects faults from a seeded generator, and records what it accepted. With
/// ``Configuration/broadcast`` it also serves the iOS 18 broadcast API on the same listener: channel management
/// (`/1/apps/<bundle id>/channels`, `/all-channels`) and broadcast sends (`/4/broadcasts/apps/<bundle id>`).
///
/// ```swift
/// let simulator = APNsSimulator(configuration: .init(
///     teamID: "TEAM123456", signingKeys: ["KEY1234567": key.publicKey],
///     topics: ["com.example.app"], certificateAuthority: try SimulatorCertificateAuthority()))
/// let port = try await simulator.start()
/// ```
public final class APNsSimulator: Sendable {
    /// The configuration the simulator was created with.
    public let configuration: Configuration
    let store: APNsSimulatorStore
    private let server = SimulatorHTTP2Server()

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.store = APNsSimulatorStore(seed: configuration.seed, recordTokens: configuration.recordTokens)
    }

    /// Binds ``Configuration/host``:``Configuration/port`` and starts serving; returns the bound port.
    ///
    /// Calling it again while the simulator runs returns the same port.
    public func start() async throws -> Int {
        if let port = self.port {
            return port
        }
        let verifier = try await APNsProviderTokenVerifier.make(keys: self.configuration.signingKeys)
        let processor = APNsRequestProcessor(configuration: self.configuration, store: self.store, verifier: verifier)
        let sslContext = try self.configuration.certificateAuthority.map { authority in
            try NIOSSLContext(
                configuration: authority.serverTLSConfiguration(
                    clientCertificates: self.configuration.clientCertificateAuthentication ? .optional : .none
                )
            )
        }
        let setup = APNsConnectionSetup(
            configuration: self.configuration,
            store: self.store,
            registry: self.server.connections
        )
        let pipeline = SimulatorHTTP2Pipeline(
            serviceName: "APNs",
            processor: processor,
            sslContext: sslContext,
            registry: self.server.connections,
            logger: self.configuration.logger,
            maxConcurrentStreams: APNsConnectionState.nioStreamCeiling,
            makeConnection: setup.makeConnection
        )
        let port = try await self.server.start(
            host: self.configuration.host,
            port: self.configuration.port,
            group: self.configuration.eventLoopGroup,
            initialize: pipeline.initialize
        )
        self.configuration.logger.info(
            "APNs simulator listening",
            metadata: [
                "address": "\(self.configuration.host):\(port)",
                "tls": "\(self.configuration.certificateAuthority != nil)",
                "sandbox": "\(self.configuration.sandbox)",
            ]
        )
        return port
    }

    /// The bound port while the simulator runs.
    public var port: Int? {
        self.server.port
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        if await self.server.stop() {
            self.configuration.logger.info("APNs simulator stopped")
        }
    }

    // MARK: Device state

    /// Makes `token` answer `410 Unregistered` with `timestampMillis` (milliseconds since 1970) from now on.
    public func unregister(token: String, at timestampMillis: Int64) {
        self.store.state.withLock { $0.unregistered[token.lowercased()] = timestampMillis }
    }

    /// Makes `token` answer `400 BadDeviceToken` from now on (e.g. a token of the other environment).
    public func markBadToken(_ token: String) {
        self.store.state.withLock { _ = $0.badTokens.insert(token.lowercased()) }
    }

    /// Registers `token` for `bundleIDs` only: other topics get `400 DeviceTokenNotForTopic`. Tokens never
    /// registered accept every topic.
    public func register(token: String, forTopics bundleIDs: Set<String>) {
        self.store.state.withLock { $0.tokenTopics[token.lowercased()] = bundleIDs }
    }

    /// Forgets everything said about `token`: unregistration, badness and topics.
    public func restore(token: String) {
        let key = token.lowercased()
        self.store.state.withLock { state in
            state.unregistered.removeValue(forKey: key)
            state.badTokens.remove(key)
            state.tokenTopics.removeValue(forKey: key)
        }
    }

    // MARK: Fault injection

    /// The current random fault plan.
    public var faults: Faults {
        self.store.state.withLock { $0.faults.plan }
    }

    /// Replaces the random fault plan; takes effect for the next request.
    public func setFaults(_ faults: Faults) {
        precondition(
            faults.internalServerErrorRate + faults.serviceUnavailableRate + faults.tooManyRequestsRate
                + faults.hangRate <= 1.000_001,
            "fault rates must add up to at most 1"
        )
        self.store.state.withLock { $0.faults.plan = faults }
    }

    /// Makes request number `number` (1-based, counting every request the simulator receives, see
    /// ``requestCount``) get `injection` instead of ordinary processing.
    public func inject(_ injection: Injection, atRequest number: Int) {
        self.store.state.withLock { $0.faults.inject(injection, atRequest: number) }
    }

    /// Makes the next requests get `injections`, one each, in order (before the random fault plan applies).
    public func injectNext(_ injections: [Injection]) {
        self.store.state.withLock { $0.faults.injectNext(injections) }
    }

    /// Sends every open connection a `GOAWAY` (`NO_ERROR`, last stream id = the last stream it served, debug data
    /// `{"reason":"<reason>"}`); each connection closes once its in-flight streams are answered.
    public func sendGoAway(reason: String = "Shutdown") {
        self.server.connections.sendGoAway(debugText: APNsResponse.json(reason: reason))
    }

    /// Closes every open connection abruptly (TCP RST), without any HTTP/2 goodbye.
    public func resetConnections() {
        self.server.connections.resetAll()
    }

    // MARK: Recording

    /// Requests received so far, whatever their outcome.
    public var requestCount: Int {
        self.store.recorder.requestCount
    }

    /// Requests answered `200` so far.
    public var acceptedCount: Int {
        self.store.recorder.acceptedCount
    }

    /// The device token of every accepted request, in order, duplicates kept (empty when
    /// ``Configuration/recordTokens`` is off).
    public func acceptedTokens() -> [String] {
        self.store.recorder.acceptedTokens()
    }

    /// Every accepted request with headers and body (empty unless ``Configuration/recordPayloads`` is on).
    public func accepted() -> [Accepted] {
        self.store.recorder.accepted()
    }

    /// Counters of requests, outcomes, connections and streams.
    public func statistics() -> Statistics {
        var statistics = self.store.recorder.statistics
        self.server.connections.fill(&statistics)
        return statistics
    }

    /// Connections currently open.
    public var openConnectionCount: Int {
        self.server.connections.openCount
    }

    /// Forgets the recorded tokens and payloads, accepted broadcasts included (counters and channels are kept).
    public func clearRecords() {
        self.store.recorder.clearRecords()
        self.store.state.withLock { $0.acceptedBroadcasts.removeAll() }
    }
}
