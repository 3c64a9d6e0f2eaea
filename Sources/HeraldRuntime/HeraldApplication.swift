import Foundation
import HeraldAPNs
import HeraldCompatAPNsMS
import HeraldCompatChoominator
import HeraldCompatGorush
import HeraldCompatMatrix
import HeraldCompatPush2mob
import HeraldCompatSujPusher
import HeraldConfiguration
import HeraldCore
import HeraldFCM
import HeraldGCMLegacy
import HeraldHMS
import HeraldIntake
import HeraldPipeline
import HeraldServer
import HeraldServerTLS
import HeraldStore
import HeraldStorePostgres
import HeraldStoreSQLite
import HeraldUnifiedPush
import HeraldWebhook
import HeraldWebPush
import HeraldWNS
import Logging
import NIOCore
import ServiceLifecycle

/// A whole Herald server built from its configuration: store, providers, pipeline, the HTTP
/// front and every front-end. The composition root: the only place that names concrete
/// providers, front-ends and stores.
public struct HeraldApplication: Sendable {
    /// The provider kinds this build of Herald ships.
    public static var standardKinds: ProviderKindRegistry {
        ProviderKindRegistry([WebhookKind(), APNsKind(), FCMKind(), HMSKind(), WebPushKind(), WNSKind(), MPNSKind(), GCMLegacyKind()])
    }

    /// The front-ends this build of Herald ships, besides the HTTP API on the main port.
    public static var standardFrontEnds: [any FrontEndKind] {
        [UDPEventFrontEnd(), GorushFrontEnd(), MatrixFrontEnd(), ChoominatorFrontEnd(), ApnsMSFrontEnd(), Push2mobFrontEnd(), SujPusherFrontEnd(), UnifiedPushFrontEnd()]
    }

    /// Where the server's sockets ended up (useful with port 0).
    public struct BoundAddresses: Sendable {
        /// Called with the HTTP port once listening.
        public var http: @Sendable (Int) -> Void = { _ in }
        /// Called with a front-end's listener name (`udp`, ...) and port once bound.
        public var frontEnd: @Sendable (_ listener: String, _ port: Int) -> Void = { _, _ in }

        /// No callbacks.
        public init() {}
    }

    /// The long-running parts, in start order (shut down in reverse).
    public let services: [any Service]
    /// The store, closed after every service has stopped.
    public let store: any HeraldStore
    /// The providers, shut down after every service has stopped.
    public let providers: ProviderSet
    /// The Prometheus registry behind `GET /metrics`.
    public let metrics: ServerMetrics
    /// What every front door hands its work to.
    public let intake: Intake
    private let logger: Logger

    /// Builds everything; throws ``ConfigurationError`` for settings that cannot work
    /// (a provider's key file, an ACL entry), before anything listens.
    public init(
        configuration: HeraldConfiguration,
        kinds: ProviderKindRegistry = HeraldApplication.standardKinds,
        frontEnds: [any FrontEndKind] = HeraldApplication.standardFrontEnds,
        logger: Logger,
        bound: BoundAddresses = BoundAddresses()
    ) async throws {
        self.logger = logger
        let server = configuration.server

        let metrics = ServerMetrics()
        self.metrics = metrics
        // One limiter for every door of this node, so a client has one bucket per realm whichever it uses.
        let rateLimiter = RateLimiter(limits: server.rateLimit, metricsFactory: metrics.factory)
        // Filled from the store below, before the port opens; kept current by the refresh service.
        let tokens = TokenCache()
        let authorizer = try Authorizer(server: server, rateLimiter: rateLimiter, tokens: tokens)
        // Read before anything is opened, so a certificate that cannot be used stops start-up cleanly.
        let tls = try server.http.tls.map { settings throws(ConfigurationError) in try TLSCredentials(settings: settings) }

        let store = try Self.openStore(database: server.database, logger: logger)
        // Nodes sharing a database share large publishes too.
        let sharedDatabase = if case .postgres = try DatabaseLocation.parse(server.database) { true } else { false }
        self.store = store

        // Providers own connections that must be released, so a failure half-way releases those built so far.
        var built: [any PushProvider] = []
        let environment = ProviderEnvironment(
            extraTrustRootFiles: configuration.outbound.caFile.map { [$0] } ?? [],
            destinationPolicy: configuration.outbound.destinations,
            logger: logger.child("herald.provider"), clock: store.clock)
        do {
            for (name, provider) in configuration.providers {
                guard let kind = kinds.kind(named: provider.kind) else {
                    throw ConfigurationError(key: "providers.\(name).kind", "unknown kind \"\(provider.kind)\"")
                }
                built.append(try await kind.makeProvider(name: name, options: provider.options, environment: environment))
            }
            for frontEnd in frontEnds {
                for provider in try await frontEnd.makeProviders(configuration: configuration, environment: environment, kinds: kinds) {
                    guard configuration.providers[provider.name] == nil else {
                        throw ConfigurationError(key: "providers.\(provider.name)", "the name is reserved for the \(frontEnd.name) front-end")
                    }
                    built.append(provider)
                }
            }
        } catch {
            await ProviderSet(built).shutdown()
            try? await store.close()
            throw error
        }
        let providers = ProviderSet(built)
        self.providers = providers
        // Read before anything listens when the store can answer now (SQLite); a store that is
        // still starting (PostgreSQL) is read by the service as soon as it can, and until then
        // requests that depend on tokens are answered 503, never let through.
        let tokenRefresh = TokenRefreshService(store: store, cache: tokens, logger: logger.child("herald.tokens"))
        try? await tokenRefresh.load()

        var policy = configuration.delivery.policy
        for (name, provider) in configuration.providers {
            if let budget = provider.maxInFlight { policy.providerBudgets[name] = budget }
            if let limit = provider.maxInFlightPerHost { policy.hostLimits[name] = limit }
        }
        // Parts of ten pages, each a job any node may claim. One node gains nothing from cutting
        // its own work up.
        if sharedDatabase { policy.sharedPartSize = 10 * policy.batchSize }
        let owner = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(SubscriberID.random())"
        let fanOutWakeUp = WakeUpSignal()
        let engine = DeliveryEngine(
            store: store, providers: providers, policy: policy, owner: owner, logger: logger.child("herald.delivery"),
            metricsFactory: metrics.factory)
        metrics.addSampler { engine.sampleInFlight() }
        let hub = configuration.eventSource.enabled
            ? EventStreamHub(keepaliveInterval: configuration.eventSource.keepaliveInterval, bufferLimit: configuration.eventSource.maxBuffered,
                maxListeners: configuration.eventSource.maxListeners, replayWindow: configuration.eventSource.replayWindow,
                logger: logger.child("herald.sse"))
            : nil
        let intake = Intake(
            store: store, providers: providers, maxBacklog: configuration.delivery.maxBacklog, observers: engine.observers,
            publishing: PublishPolicy(
                idempotencyWindow: configuration.delivery.idempotencyWindow, maxScheduleAhead: configuration.delivery.maxScheduleAhead),
            metrics: IntakeMetrics(factory: metrics.factory), logger: logger)
        self.intake = intake

        let frontEndContext = FrontEndContext(
            configuration: configuration, intake: intake, feedback: store, leases: store, logger: logger, metricsFactory: metrics.factory,
            rateLimiter: rateLimiter, bound: bound.frontEnd)
        // Front-ends on the main port add routes there.
        var additionalRoutes: [any HTTPRoutes] = []
        do {
            for case let frontEnd as any MainPortFrontEndKind in frontEnds {
                additionalRoutes.append(try frontEnd.makeRoutes(context: frontEndContext, authorizer: authorizer))
            }
        } catch {
            await providers.shutdown()
            try? await store.close()
            throw error
        }
        let dashboard = DashboardFeed(store: store, metrics: metrics, hub: hub, providers: providers, logger: logger.child("herald.dashboard"))
        let application = HTTPFront.service(
            HTTPFront.Parts(
                server: server, store: store, providers: providers, intake: intake, authorizer: authorizer, hub: hub, metrics: metrics,
                dashboard: dashboard, additionalRoutes: additionalRoutes, tls: tls),
            logger: logger, onBound: bound.http)

        // Services stop in reverse order: the workers stop handing work over, then the deliveries in
        // flight finish (or are cancelled after the grace period), then the settler records their answers.
        // The store runs first and stops last; the relay wakes workers and listeners on what the store
        // reports (this node's commits, and a shared store's other nodes').
        var services: [any Service] = [StoreService(store: store)]
        services.append(WakeUpRelay(store: store, jobs: fanOutWakeUp, deliveries: engine.retryWakeUp) { event in hub?.publish(event) })
        services += [engine.settler, engine.tasks] as [any Service]
        services.append(FanOutService(store: store, engine: engine, wakeUp: fanOutWakeUp, owner: owner, logger: logger))
        services.append(RetryService(store: store, engine: engine, owner: owner, logger: logger))
        services.append(PruneService(store: store, policy: policy, logger: logger))
        services.append(ScheduleService(store: store, logger: logger.child("herald.schedule")))
        services.append(tokenRefresh)
        do {
            for frontEnd in frontEnds {
                services += try frontEnd.makeServices(context: frontEndContext)
            }
        } catch {
            await providers.shutdown()
            try? await store.close()
            throw error
        }
        // The apns-ms front-end reloads its own certificate (its services include their reloader).
        if let tls { services.append(TLSReloadService(credentials: [tls], logger: logger.child("herald.tls"))) }
        services.append(AfterTokensRead(cache: tokens, service: application))
        // Shut down first (services stop in reverse order): open event streams and dashboards end,
        // so the HTTP server's graceful shutdown does not wait on them.
        if let hub { services.append(hub) }
        services.append(dashboard)
        self.services = services
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully: intake stops, work in
    /// progress is checkpointed, connections close.
    public func run() async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await runAndClose { try await group.run() }
    }

    /// Runs `body` (which runs the services), then releases the providers and the store.
    public func runAndClose(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await close()
            throw error
        }
        await close()
    }

    /// Releases the providers and the store (the settler handed the leases back when it stopped).
    private func close() async {
        await providers.shutdown()
        do {
            try await store.close()
        } catch {
            logger.error("closing the store failed", metadata: ["error": "\(error)"])
        }
    }
}

extension Logger {
    /// A logger with another label and this one's level.
    func child(_ label: String) -> Logger {
        var child = Logger(label: label)
        child.logLevel = logLevel
        return child
    }
}
