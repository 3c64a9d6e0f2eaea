import Hummingbird

/// Routes a front-end adds to Herald's own HTTP port (gorush's `POST /api/push`), registered by the
/// composition root beside the pushd API, so the HTTP front needs to know no front-end.
public protocol HTTPRoutes: Sendable {
    /// Adds the routes to `router`.
    func register(on router: Router<HeraldRequestContext>)
}
