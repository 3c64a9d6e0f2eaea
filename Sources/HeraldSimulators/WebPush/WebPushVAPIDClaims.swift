import JWTKit

/// The claims a push service reads from a VAPID JWT (RFC 8292 §2); each optional, so a token missing one is
/// reported as such rather than as unreadable.
struct WebPushVAPIDClaims: JWTPayload {
    let aud: String?
    let exp: Double?
    let sub: String?

    /// Checks nothing: audience and expiry are checked per request against the simulator's origin and clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
