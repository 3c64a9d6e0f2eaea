import Hummingbird

/// A faithful local imitation of the retired Microsoft Push Notification Service (providers.md §5.1), for tests and
/// `herald simulate mpns`.
///
/// Channel URIs (`/throttledthirdparty/01.00/<id>`) check `X-NotificationClass`, a fitting
/// `X-WindowsPhone-Target`, `Content-Type: text/xml` and a well-formed `wp:Notification` body, and answer with
/// `X-NotificationStatus`, `X-SubscriptionStatus` and `X-DeviceConnectionStatus` as MPNS did: an expired or unknown
/// channel is `404 Dropped/Expired/Disconnected`. Faults come from a seeded generator; accepted notifications are
/// recorded.
///
/// ```swift
/// let simulator = MPNSSimulator(configuration: .init(certificateAuthority: try SimulatorCertificateAuthority()))
/// try await simulator.start()
/// let channel = simulator.makeChannel()      // a subscriber's token
/// // provider option endpoint: simulator.origin
/// ```
public final class MPNSSimulator: HTTP1FaultInjecting {
    /// Faults injected into notification requests.
    public typealias Faults = HTTP1SimulatorFaults
    /// What a scripted request gets.
    public typealias Injection = HTTP1SimulatorInjection

    /// The path prefix of channel URIs, as MPNS's unauthenticated channels had.
    static let channelPath = "/throttledthirdparty/01.00/"

    /// The configuration the simulator was created with.
    public var configuration: Configuration { store.configuration }
    let store: MPNSSimulatorStore
    private let server: HTTP1SimulatorServer

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        let store = MPNSSimulatorStore(configuration: configuration)
        self.store = store
        let router = Router()
        router.post("/throttledthirdparty/01.00/:channel") { request, context in
            try await store.notify(request, channelID: context.parameters.get("channel") ?? "")
        }
        self.server = HTTP1SimulatorServer(
            name: "MPNS", host: configuration.host, port: configuration.port,
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

    /// `https://127.0.0.1:<port>`: a provider's `endpoint`, which makes its channel URIs acceptable; empty before
    /// ``start()``.
    public var origin: String { store.state.withLock { $0.origin } }

    // MARK: Channels

    /// A new active channel URI: what a Windows Phone app would register as its token. The simulator must be running.
    public func makeChannel() -> String {
        store.state.withLock { state in
            precondition(!state.origin.isEmpty, "start the simulator before making channels")
            let high = state.faults.nextRandom()
            let low = state.faults.nextRandom()
            let id = "AAF" + String(high, radix: 36, uppercase: true) + String(low, radix: 36, uppercase: true)
            state.channels[id] = .active
            return state.channelURI(id: id)
        }
    }

    /// Sets what the channel `uri` answers from now on.
    public func setState(_ channelState: ChannelState, ofChannel uri: String) {
        guard let range = uri.range(of: Self.channelPath) else { return }
        let id = String(uri[range.upperBound...])
        store.state.withLock { state in
            if state.channels[id] != nil { state.channels[id] = channelState }
        }
    }

    /// Makes the channel `uri` answer `404` with `X-SubscriptionStatus: Expired` from now on.
    public func expireChannel(_ uri: String) {
        setState(.expired, ofChannel: uri)
    }

    // MARK: Fault injection

    /// Runs `body` on the fault plan under the state lock (``HTTP1FaultInjecting``'s controls use it).
    public func withFaultPlan<Result>(_ body: (inout HTTP1FaultPlan) -> Result) -> Result {
        store.state.withLock { body(&$0.faults) }
    }

    // MARK: Recording

    /// Counters of requests and answers.
    public func statistics() -> Statistics {
        store.recorder.statistics
    }

    /// Every accepted notification, in order (empty unless ``Configuration/recordPayloads`` is on).
    public func accepted() -> [Accepted] {
        store.recorder.accepted()
    }

    /// The accepted notifications of the channel `uri`, in order.
    public func accepted(channel uri: String) -> [Accepted] {
        store.recorder.accepted().filter { $0.channel == uri }
    }

    /// Forgets the recorded notifications (counters are kept).
    public func clearRecords() {
        store.recorder.clearRecords()
    }
}
