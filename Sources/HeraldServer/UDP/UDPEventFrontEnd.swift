import HeraldIntake
import ServiceLifecycle

/// The rs/pushd UDP event port (`server.udp`, §13) as a front-end.
public struct UDPEventFrontEnd: FrontEndKind {
    public var name: String { "pushd" }

    /// Creates the kind.
    public init() {}

    public func makeServices(context: FrontEndContext) throws -> [any Service] {
        let server = context.configuration.server
        guard let udp = server.udp else { return [] }
        let authorizer = try Authorizer(server: server, rateLimiter: context.rateLimiter)
        if authorizer.usesBasicAuth && !authorizer.hasACL(for: .publish) {
            context.logger.warning("UDP events are accepted from any address")
        }
        let bound = context.bound
        return [
            UDPEventService(
                host: udp.host, port: udp.port, intake: context.intake, authorizer: authorizer, accessLog: server.accessLog,
                logger: context.logger, metricsFactory: context.metricsFactory,
                onBound: { address in bound("udp", address?.port ?? udp.port) })
        ]
    }
}
