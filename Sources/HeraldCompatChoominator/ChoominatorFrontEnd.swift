import HeraldConfiguration
import HeraldCore
import HeraldIntake
import ServiceLifecycle

/// The Choominator/CodexTextor pushd stand-in (`compat.choominator`, compat.md §5): a registration
/// port and a notification port taking plain JSON datagrams, never answered.
///
/// Registrations become subscribers of the configured provider subscribed to the event named by
/// their group; notifications become one durable publish of a prepared APNs payload to the distinct
/// devices of that provider in any listed group. Both ports are checked by source address only:
/// `server.acl.register` and `server.acl.publish` (compat.md §1.1), and limited per source
/// address by `server.rate_limit.register` and `.publish`.
public struct ChoominatorFrontEnd: FrontEndKind {
    /// `choominator`: the origin of its sends in feedback, dead letters and metrics.
    public var name: String { "choominator" }

    /// Creates the kind.
    public init() {}

    /// Two services, one per port, or none when `compat.choominator` is absent.
    public func makeServices(context: FrontEndContext) throws -> [any Service] {
        guard let section = context.configuration.compat.choominator else { return [] }
        let intake = context.intake
        let settings = try ChoominatorSettings(section: section) { intake.providers[$0] != nil }
        let acl = context.configuration.server.acl
        let registerACL = try acl[.register].map { entries throws(ConfigurationError) in
            try AccessList(entries, key: "server.acl.register")
        }
        let publishACL = try acl[.publish].map { entries throws(ConfigurationError) in
            try AccessList(entries, key: "server.acl.publish")
        }
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        let metrics = FrontEndRequestCounter(label: "herald_choominator_datagrams_total", sourceDimension: "port", factory: context.metricsFactory)
        let rejections = ChoominatorRejectionLog(logger: logger)
        let bound = context.bound
        let hostKey = section.keyPath("host")
        return [
            ChoominatorPortService(
                addresses: try ChoominatorAddresses.resolve(settings.host, port: settings.registrationPort, key: hostKey),
                handler: ChoominatorRegistrar(intake: intake, provider: settings.provider, logger: logger),
                acl: registerACL, realm: .register, rateLimiter: context.rateLimiter, metrics: metrics, rejections: rejections, logger: logger,
                onBound: { bound("choominator.registration", $0) }),
            ChoominatorPortService(
                addresses: try ChoominatorAddresses.resolve(settings.host, port: settings.notificationPort, key: hostKey),
                handler: ChoominatorPublisher(intake: intake, provider: settings.provider, origin: DeliveryOrigin(name), logger: logger),
                acl: publishACL, realm: .publish, rateLimiter: context.rateLimiter, metrics: metrics, rejections: rejections, logger: logger,
                onBound: { bound("choominator.notification", $0) }),
        ]
    }
}
