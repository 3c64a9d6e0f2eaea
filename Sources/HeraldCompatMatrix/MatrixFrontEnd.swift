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

    /// The gateway's routes, or, when `compat.matrix` is absent, the stand-in that answers its
    /// paths as absent.
    public func makeRoutes(context: FrontEndContext, authorizer: Authorizer) throws -> any HTTPRoutes {
        guard let section = context.configuration.compat.matrix else { return Unconfigured() }
        let intake = context.intake
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        return MatrixRoutes(
            apps: try MatrixAppTable(section: section) { intake.providers[$0]?.kind }, intake: intake, feedback: context.feedback,
            authorizer: authorizer,
            counter: FrontEndRequestCounter(label: "herald_matrix_pushkeys_total", sourceDimension: "app", factory: context.metricsFactory),
            logger: logger)
    }

    /// What the main port serves at the gateway's paths when `compat.matrix` is absent: a bare 404
    /// (the gateway is not configured), and since the paths stay known, any other method answers 405
    /// with `Allow` like every path of the API (docs/openapi.yaml).
    struct Unconfigured: HTTPRoutes {
        func register(on router: Router<HeraldRequestContext>) {
            router.post(RouterPath(stringLiteral: MatrixRoutes.path)) { _, _ -> Response in throw APIError.notFound }
            router.get("/health") { _, _ -> Response in throw APIError.notFound }
        }
    }
}
