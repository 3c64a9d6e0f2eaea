import HeraldIntake
import HeraldServer
import ServiceLifecycle

/// gorush's drop-in (compat.md §6): `POST /api/push` on Herald's main port, when
/// `compat.gorush` is configured.
public struct GorushFrontEnd: MainPortFrontEndKind {
    public var name: String { GorushRoutes.origin.rawValue }

    /// Creates the kind.
    public init() {}

    /// None: gorush's clients reach Herald's main port.
    public func makeServices(context: FrontEndContext) throws -> [any Service] { [] }

    /// The routes `compat.gorush` describes, or the stand-in that answers its path as absent.
    public func makeRoutes(context: FrontEndContext, authorizer: Authorizer) throws -> any HTTPRoutes {
        try GorushRoutes(configuration: context.configuration, intake: context.intake, authorizer: authorizer, logger: context.logger)
            ?? GorushRoutes.Unconfigured()
    }
}
