import JWTKit

/// The claims of a VAPID JWT (RFC 8292 §2): audience, expiry and contact.
struct VAPIDClaims: JWTPayload {
    /// The push resource's origin.
    let aud: String
    /// Unix seconds; at most 24 hours after the request.
    let exp: Int64
    /// The `mailto:` or `https:` contact of the application server's operator.
    let sub: String

    /// Nothing to check when signing; the push service checks.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
