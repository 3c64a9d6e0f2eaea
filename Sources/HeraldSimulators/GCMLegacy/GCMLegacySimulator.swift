import Hummingbird

/// A faithful local imitation of the legacy GCM / FCM HTTP API (providers.md §5.2), for tests and
/// `herald simulate gcm-legacy`.
///
/// `POST /gcm/send` (and `/fcm/send`) checks `Authorization: key=` against the configured server keys (`401` with
/// Google's HTML page otherwise), `Content-Type: application/json`, the JSON shape, at most 1000
/// `registration_ids`, `time_to_live`, reserved data keys and a 4096-byte data limit, and answers the multicast
/// results document with per-token state (`NotRegistered`, `InvalidRegistration`, canonical ids). It records each
/// accepted request so that a test can count batches. Faults come from a seeded generator.
///
/// ```swift
/// let simulator = GCMLegacySimulator(configuration: .init(apiKeys: ["AIza-test"], certificateAuthority: try SimulatorCertificateAuthority()))
/// try await simulator.start()
/// // provider option endpoint: simulator.endpoint
/// ```
public final class GCMLegacySimulator: HTTP1FaultInjecting {
    /// Faults injected into requests.
    public typealias Faults = HTTP1SimulatorFaults
    /// What a scripted request gets.
    public typealias Injection = HTTP1SimulatorInjection

    /// The configuration the simulator was created with.
    public var configuration: Configuration { store.configuration }
    let store: GCMLegacySimulatorStore
    private let server: HTTP1SimulatorServer

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        let store = GCMLegacySimulatorStore(configuration: configuration)
        self.store = store
        let router = Router()
        router.post("/gcm/send") { request, _ in try await store.send(request) }
        router.post("/fcm/send") { request, _ in try await store.send(request) }
        self.server = HTTP1SimulatorServer(
            name: "GCM legacy", host: configuration.host, port: configuration.port,
            certificateAuthority: configuration.certificateAuthority, logger: configuration.logger, router: router)
    }

    /// Binds ``Configuration/host``:``Configuration/port`` and starts serving; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        try await server.start()
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        await server.stop()
    }

    /// The bound port while the simulator runs.
    public var port: Int? { server.port }

    /// The send endpoint (a provider's `endpoint`): `https://127.0.0.1:<port>/gcm/send`; empty before ``start()``.
    public var endpoint: String {
        guard let port else { return "" }
        return "\(configuration.certificateAuthority == nil ? "http" : "https")://\(configuration.host):\(port)/gcm/send"
    }

    // MARK: Token state

    /// Sets what `registrationID` answers from now on.
    public func setState(_ tokenState: TokenState, of registrationID: String) {
        store.state.withLock { $0.tokens[registrationID] = tokenState }
    }

    /// Makes `registrationID` answer `NotRegistered` from now on.
    public func unregister(_ registrationID: String) {
        setState(.notRegistered, of: registrationID)
    }

    // MARK: Fault injection

    /// Runs `body` on the fault plan under the state lock (``HTTP1FaultInjecting``'s controls use it).
    public func withFaultPlan<Result>(_ body: (inout HTTP1FaultPlan) -> Result) -> Result {
        store.state.withLock { body(&$0.faults) }
    }

    // MARK: Recording

    /// Counters of requests and results.
    public func statistics() -> Statistics {
        store.state.withLock { $0.statistics }
    }

    /// Every request answered `200`, in order (empty unless ``Configuration/recordPayloads`` is on).
    public func accepted() -> [Accepted] {
        store.state.withLock { $0.accepted }
    }

    /// How many messages were delivered to `registrationID`.
    public func deliveries(to registrationID: String) -> Int {
        store.state.withLock { $0.deliveries[registrationID] ?? 0 }
    }

    /// Forgets the recorded requests and deliveries (counters are kept).
    public func clearRecords() {
        store.state.withLock { state in
            state.accepted.removeAll()
            state.deliveries.removeAll()
        }
    }
}
