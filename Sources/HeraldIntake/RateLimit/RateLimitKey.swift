import HeraldCore

/// A bucket's identity in the limiter: each realm limits each client separately.
struct RateLimitKey: Sendable, Hashable {
    /// The realm the request was made in.
    var realm: Realm
    /// Who made it.
    var client: RateLimitClient
}
