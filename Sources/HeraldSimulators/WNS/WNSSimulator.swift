import HTTPTypes
import Hummingbird

/// A faithful local imitation of Windows Push Notification Services (providers.md §4), for tests, benchmarks and
/// `herald simulate wns`.
///
/// It serves the token endpoint (`/accesstoken.srf`, OAuth 2.0 client credentials) and channel URIs
/// (`/?token=<id>`) on one HTTPS origin, as `pushd-api.md` §9 expects of a simulator. It validates what WNS
/// validates (bearer token, `X-WNS-Type`, matching `Content-Type`, `Content-Length`, 5000-byte bodies, well-formed
/// XML with the type's root element), answers with WNS's headers (`X-WNS-Status`, `X-WNS-Msg-ID`,
/// `X-WNS-Error-Description`), keeps channel state (expired `410`, offline, unknown `404`), injects faults from a
/// seeded generator, and records what it accepted.
///
/// ```swift
/// let simulator = WNSSimulator(configuration: .init(
///     clientID: "ms-app://s-1-15-2-1", clientSecret: "secret", certificateAuthority: try SimulatorCertificateAuthority()))
/// try await simulator.start()
/// let channel = simulator.makeChannel()      // a subscriber's token
/// // provider option token_endpoint: simulator.tokenEndpoint
/// ```
public final class WNSSimulator: HTTP1FaultInjecting {
    /// Faults injected into notification requests.
    public typealias Faults = HTTP1SimulatorFaults
    /// What a scripted request gets.
    public typealias Injection = HTTP1SimulatorInjection

    /// The configuration the simulator was created with.
    public var configuration: Configuration { store.configuration }
    let store: WNSSimulatorStore
    private let server: HTTP1SimulatorServer

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        let store = WNSSimulatorStore(configuration: configuration)
        self.store = store
        let router = Router()
        router.post("/accesstoken.srf") { request, _ in try await store.token(request) }
        router.post("/") { request, _ in try await store.notify(request) }
        for method in [HTTPRequest.Method.get, .put, .delete, .patch] {
            router.on("/", method: method) { request, _ in store.methodNotAllowed(request) }
        }
        self.server = HTTP1SimulatorServer(
            name: "WNS", host: configuration.host, port: configuration.port,
            certificateAuthority: configuration.certificateAuthority, logger: configuration.logger, router: router)
    }

    /// Binds ``Configuration/host``:``Configuration/port`` and starts serving; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        let port = try await server.start()
        let origin = "\(configuration.certificateAuthority == nil ? "http" : "https")://\(configuration.host):\(port)"
        store.state.withLock { $0.origin = origin }
        return port
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        await server.stop()
    }

    /// The bound port while the simulator runs.
    public var port: Int? { server.port }

    /// The token endpoint URL (a provider's `token_endpoint`); empty before ``start()``.
    public var tokenEndpoint: String {
        store.state.withLock { $0.origin.isEmpty ? "" : $0.origin + "/accesstoken.srf" }
    }

    // MARK: Channels

    /// A new active channel URI of the app `clientID` (the only configured app when `nil`): what a Windows app
    /// would register as its token. The simulator must be running.
    public func makeChannel(clientID: String? = nil) -> String {
        let owner = clientID ?? configuration.credentials.keys.sorted().first ?? ""
        return store.state.withLock { state in
            precondition(!state.origin.isEmpty, "start the simulator before making channels")
            let id = "AwYAAAB" + store.randomHex(&state) + store.randomHex(&state)
            state.channels[id] = .init(clientID: owner, state: .active)
            return state.channelURI(id: id)
        }
    }

    /// Sets what the channel `uri` answers from now on (expired channels answer `410`).
    public func setState(_ channelState: ChannelState, ofChannel uri: String) {
        guard let id = Self.channelID(of: uri) else { return }
        store.state.withLock { $0.channels[id]?.state = channelState }
    }

    /// Makes the channel `uri` answer `410` from now on.
    public func expireChannel(_ uri: String) {
        setState(.expired, ofChannel: uri)
    }

    /// Forgets the channel `uri`: it answers `404` from now on.
    public func removeChannel(_ uri: String) {
        guard let id = Self.channelID(of: uri) else { return }
        store.state.withLock { _ = $0.channels.removeValue(forKey: id) }
    }

    /// Invalidates every access token issued so far: notifications using them get `401`.
    public func revokeTokens() {
        store.state.withLock { $0.tokens.removeAll() }
    }

    private static func channelID(of uri: String) -> String? {
        guard let range = uri.range(of: "?token=") else { return nil }
        return String(uri[range.upperBound...])
    }

    // MARK: Fault injection

    /// Runs `body` on the fault plan under the state lock (``HTTP1FaultInjecting``'s controls use it).
    public func withFaultPlan<Result>(_ body: (inout HTTP1FaultPlan) -> Result) -> Result {
        store.state.withLock { body(&$0.faults) }
    }

    /// Makes the next token requests get `injections`, one each, in order.
    public func injectNextTokenAnswers(_ injections: [Injection]) {
        store.state.withLock { $0.queuedTokenAnswers.append(contentsOf: injections) }
    }

    // MARK: Recording

    /// Counters of requests and answers.
    public func statistics() -> Statistics {
        store.state.withLock { $0.statistics }
    }

    /// Every accepted notification, in order (empty unless ``Configuration/recordPayloads`` is on).
    public func accepted() -> [Accepted] {
        store.state.withLock { $0.accepted }
    }

    /// The accepted notifications of the channel `uri`, in order.
    public func accepted(channel uri: String) -> [Accepted] {
        store.state.withLock { $0.accepted.filter { $0.channel == uri } }
    }

    /// Forgets the recorded notifications (counters are kept).
    public func clearRecords() {
        store.state.withLock { $0.accepted.removeAll() }
    }
}
