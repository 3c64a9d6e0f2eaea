import HeraldIntake

/// A front-end that serves on Herald's own HTTP port (gorush's `POST /api/push`): besides any
/// services of its own, it adds routes beside the pushd API, behind the port's TLS, ACLs and rate
/// limits.
///
/// The composition root asks every front-end kind that conforms for its routes, so the HTTP front
/// knows none of them.
public protocol MainPortFrontEndKind: FrontEndKind {
    /// The routes the front-end adds to the main port; when its configuration leaves it off, the
    /// routes that answer its paths as absent (a bare 404), so that they stay known to the port.
    ///
    /// Called once at start-up, before anything listens; throws ``ConfigurationError`` for
    /// settings that cannot work.
    func makeRoutes(context: FrontEndContext, authorizer: Authorizer) throws -> any HTTPRoutes
}
