import HeraldIntake
import HeraldServer
import Hummingbird
import ServiceLifecycle

/// The Matrix push gateway (compat.md §8): Sygnal's `POST /_matrix/push/v1/notify` on Herald's
/// main port, when `compat.matrix` is configured.
public struct MatrixFrontEnd: MainPortFrontEndKind {
    public var name: String { MatrixRoutes.origin.rawValue }

    /// Creates the kind.
    public init() {}

    /// None: homeservers reach Herald's main port.
    public func makeServices(context: FrontEndContext) throws -> [any Service] { [] }

    /// The gateway's routes, or none when `compat.matrix` is absent (its path is then unknown, as
    /// on a server that is no push gateway).
    public func makeRoutes(context: FrontEndContext, authorizer: Authorizer) throws -> any HTTPRoutes {
        guard let section = context.configuration.compat.matrix else { return NoRoutes() }
        let intake = context.intake
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        return MatrixRoutes(
            apps: try MatrixAppTable(section: section) { intake.providers[$0]?.kind }, intake: intake, authorizer: authorizer,
            counter: FrontEndRequestCounter(label: "herald_matrix_pushkeys_total", sourceDimension: "app", factory: context.metricsFactory),
            logger: logger)
    }

    /// Nothing to add to the port.
    struct NoRoutes: HTTPRoutes {
        func register(on router: Router<HeraldRequestContext>) {}
    }
}
