import HeraldConfiguration
import HeraldCore
import HeraldIntake
import HeraldPipeline
import HeraldServerTLS
import HeraldStore
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import ServiceLifecycle

/// Herald's own HTTP port: the rs/pushd API, the raw-send route, the admin routes and the
/// dashboard, Web Push's key and the Server-Sent Events stream, behind one error middleware and read timeouts; over
/// plain HTTP/1.1, or over TLS with HTTP/2 or HTTP/1.1 by ALPN when `server.http.tls` is set.
public enum HTTPFront {
    /// What the routes are built from.
    public struct Parts: Sendable {
        /// The `server:` settings (address, timeouts, access log, auth).
        public var server: HeraldConfiguration.Server
        /// The store the read routes query.
        public var store: any HeraldStore
        /// The providers (`proto` names, connection gauges, Web Push keys).
        public var providers: ProviderSet
        /// Where writes go.
        public var intake: Intake
        /// Who may do what.
        public var authorizer: Authorizer
        /// The Server-Sent Events hub (`nil`: `event_source` off).
        public var hub: EventStreamHub?
        /// The registry `GET /metrics` renders.
        public var metrics: ServerMetrics
        /// The dashboards' stream of metric snapshots (a service the application runs).
        public var dashboard: DashboardFeed
        /// Front-ends' routes on this port.
        public var additionalRoutes: [any HTTPRoutes]
        /// The certificate and key when the port serves TLS (`server.http.tls`); `nil` for plain HTTP.
        public var tls: TLSCredentials?

        /// Collects the parts.
        public init(
            server: HeraldConfiguration.Server, store: any HeraldStore, providers: ProviderSet, intake: Intake, authorizer: Authorizer,
            hub: EventStreamHub?, metrics: ServerMetrics, dashboard: DashboardFeed, additionalRoutes: [any HTTPRoutes] = [],
            tls: TLSCredentials? = nil
        ) {
            self.dashboard = dashboard
            self.additionalRoutes = additionalRoutes
            self.tls = tls
            self.server = server
            self.store = store
            self.providers = providers
            self.intake = intake
            self.authorizer = authorizer
            self.hub = hub
            self.metrics = metrics
        }
    }

    /// The HTTP server as a service; `onBound` learns its port once it listens.
    public static func service(_ parts: Parts, logger: Logger, onBound: @escaping @Sendable (Int) -> Void) -> any Service {
        let server = parts.server
        let router = Router(context: HeraldRequestContext.self)
        let routeMethods = RouteMethods()
        let recorder = RequestRecorder(accessLog: server.accessLog, logger: logger, metrics: parts.metrics)
        router.add(middleware: ErrorMiddleware(recorder: recorder, routeMethods: routeMethods))
        PushdRoutes(
            store: parts.store, providers: parts.providers, intake: parts.intake, authorizer: parts.authorizer, hub: parts.hub, logger: logger,
            clock: parts.intake.clock
        ).register(on: router)
        RawSendRoutes(intake: parts.intake, authorizer: parts.authorizer).register(on: router)
        TokenRoutes(intake: parts.intake, authorizer: parts.authorizer, tokens: parts.authorizer.tokens).register(on: router)
        AdminRoutes(
            store: parts.store, intake: parts.intake, authorizer: parts.authorizer, metrics: parts.metrics, hub: parts.hub, providers: parts.providers
        ).register(on: router)
        DashboardRoutes(store: parts.store, authorizer: parts.authorizer, providers: parts.providers, feed: parts.dashboard).register(on: router)
        WebPushRoutes(providers: parts.providers, authorizer: parts.authorizer).register(on: router)
        BroadcastChannelRoutes(providers: parts.providers, authorizer: parts.authorizer).register(on: router)
        for routes in parts.additionalRoutes { routes.register(on: router) }
        routeMethods.load(router)

        // The same read timeouts guard HTTP/1.1 connections and, over TLS, each HTTP/2 stream.
        // The event streams' handler comes after the timeouts', which then see its requests too.
        let takeover = parts.hub.map { EventStreamTakeover.Parts(hub: $0, authorizer: parts.authorizer, recorder: recorder) }
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                RequestReadTimeoutHandler(
                    headerTimeout: TimeAmount(server.headerTimeout), bodyTimeout: TimeAmount(server.bodyTimeout), logger: logger)
            ] + (takeover.map { [EventStreamTakeover(parts: $0)] } ?? []),
            idleTimeout: TimeAmount(server.idleTimeout))
        let channel: HTTPServerBuilder
        if let tls = parts.tls {
            channel = .heraldTLS(
                credentials: tls, configuration: .init(idleTimeout: server.idleTimeout, streamConfiguration: http1),
                handshakeDeadline: server.headerTimeout)
        } else {
            channel = HTTPServerBuilder { responder in EventStreamHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: http1)) }
        }
        return Application(
            router: router,
            server: channel,
            configuration: .init(address: .hostname(server.http.host, port: server.http.port), serverName: nil),
            onServerRunning: { channel in onBound(channel.localAddress?.port ?? server.http.port) },
            logger: logger
        )
    }
}
