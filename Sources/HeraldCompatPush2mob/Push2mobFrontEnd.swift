import HeraldConfiguration
import HeraldCore
import HeraldIntake
import ServiceLifecycle

/// The push2mob stand-in (`compat.push2mob`, compat.md §3): two ZeroMQ REP sockets of text
/// commands, one sending prepared APNs payloads, one sending data messages through FCM (or legacy
/// GCM), each with a `feedback` command.
///
/// Its sends are raw sends on the intake, with origins `push2mob-apns` and `push2mob-gcm` (one per
/// socket, since each socket's `feedback` returns only its own deliveries' entries). Both sockets
/// are checked by source address only (`server.acl.publish`, compat.md §1.1) and limited per
/// source address by `server.rate_limit.publish`.
public struct Push2mobFrontEnd: FrontEndKind {
    /// `push2mob`: the front-end's name in logs.
    public var name: String { "push2mob" }

    /// The origin of what the APNs socket sends, in feedback, dead letters and metrics.
    public static let apnsOrigin = DeliveryOrigin("push2mob-apns")
    /// The origin of what the GCM socket sends.
    public static let gcmOrigin = DeliveryOrigin("push2mob-gcm")

    /// Creates the kind.
    public init() {}

    /// One service per configured socket, or none when `compat.push2mob` is absent.
    public func makeServices(context: FrontEndContext) throws -> [any Service] {
        guard let section = context.configuration.compat.push2mob else { return [] }
        let intake = context.intake
        let settings = try Push2mobSettings(section: section) { intake.providers[$0]?.kind }
        let acl = try context.configuration.server.acl[.publish].map { entries throws(ConfigurationError) in
            try AccessList(entries, key: "server.acl.publish")
        }
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        let bound = context.bound
        let metrics = FrontEndRequestCounter(label: "herald_push2mob_requests_total", sourceDimension: "socket", factory: context.metricsFactory)
        var services: [any Service] = []
        if let provider = settings.apnsProvider {
            let handler = Push2mobAPNsHandler(
                intake: intake, feedback: context.feedback, provider: provider, origin: Self.apnsOrigin, ids: Push2mobIDCounter(),
                tokenFormat: settings.tokenFormat, logger: logger)
            services.append(Push2mobSocketService(
                endpoint: settings.apnsBind, key: section.keyPath("apns_bind"), handler: handler, acl: acl, rateLimiter: context.rateLimiter,
                metrics: metrics, logger: logger, onBound: { bound("push2mob.apns", Self.port(of: $0)) }))
        }
        if let provider = settings.gcmProvider {
            let handler = Push2mobGCMHandler(
                intake: intake, feedback: context.feedback, provider: provider, legacy: intake.providers[provider]?.kind == "gcm-legacy",
                origin: Self.gcmOrigin, ids: Push2mobIDCounter(), filter: Push2mobGCMFilter(store: context.feedback, origin: Self.gcmOrigin),
                logger: logger)
            services.append(Push2mobSocketService(
                endpoint: settings.gcmBind, key: section.keyPath("gcm_bind"), handler: handler, acl: acl, rateLimiter: context.rateLimiter,
                metrics: metrics, logger: logger, onBound: { bound("push2mob.gcm", Self.port(of: $0)) }))
        }
        return services
    }

    /// The port of a bound `tcp://host:port` endpoint (0 for other transports).
    static func port(of endpoint: String) -> Int {
        guard endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":") else { return 0 }
        return Int(endpoint[endpoint.index(after: colon)...]) ?? 0
    }
}
