import HeraldConfiguration
import HeraldCore
import HeraldIntake
import HeraldServerTLS
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The UnifiedPush push server (`unifiedpush`, issue 42): a listener of its own speaking the part
/// of ntfy's HTTP API that distributors (the ntfy Android app) and app servers use, with messages
/// kept in Herald's database until their TTL.
public struct UnifiedPushFrontEnd: FrontEndKind {
    /// `unifiedpush`.
    public var name: String { "unifiedpush" }

    /// Creates the kind.
    public init() {}

    /// The listener (and, with `tls`, its certificate reloader) and the pruner, or nothing when
    /// `unifiedpush` is absent.
    public func makeServices(context: FrontEndContext) throws -> [any Service] {
        guard let section = context.configuration.unifiedPush else { return [] }
        let settings = try UnifiedPushSettings(section: section)
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        let router = Router(context: BasicRequestContext.self)
        let routes = UnifiedPushRoutes(
            settings: settings, intake: context.intake, hub: UnifiedPushHub(),
            counter: FrontEndRequestCounter(label: "herald_unifiedpush_requests_total", sourceDimension: "kind", factory: context.metricsFactory),
            limiter: settings.rate.map { RateLimiter(limits: [.publish: $0]) } ?? .unlimited, logger: logger)
        routes.register(on: router)
        // Plain HTTP/1.1 also upgrades `/<topics>/ws` to a WebSocket (behind a proxy that
        // terminates TLS); with `tls`, subscriptions are `/json` and `/sse`.
        let (channel, credentials) = try HTTPServerBuilder.frontEndListener(tls: settings.tls, server: context.configuration.server) {
            .http1WebSocketUpgrade { head, _, _ in await routes.webSocketUpgrade(head) }
        }
        let bound = context.bound
        let port = settings.port
        let application = Application(
            router: router, server: channel,
            configuration: .init(address: .hostname(settings.host, port: port), serverName: nil),
            onServerRunning: { channel in bound("unifiedpush", channel.localAddress?.port ?? port) },
            logger: logger)
        var services: [any Service] = [UnifiedPushPruneService(intake: context.intake, topicIdle: settings.topicIdle, logger: logger), application]
        if let credentials { services.append(TLSReloadService(credentials: [credentials], logger: logger)) }
        return services
    }
}

/// Deletes expired messages and idle, empty topics every minute.
struct UnifiedPushPruneService: Service {
    let intake: Intake
    let topicIdle: Int64
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let removed = try await intake.prunePushMessages(idleBefore: intake.clock.nowSeconds() - topicIdle)
                if removed > 0 { logger.debug("pruned UnifiedPush messages", metadata: ["count": "\(removed)"]) }
            } catch {
                logger.warning("pruning UnifiedPush messages failed; will try again", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(60)) }
        }
    }
}
