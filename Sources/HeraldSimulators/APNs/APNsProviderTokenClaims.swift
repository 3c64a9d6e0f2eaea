import JWTKit

/// The claims of an APNs provider token (§1.5): only `iss` (team id) and `iat` (Unix seconds) are defined.
struct APNsProviderTokenClaims: JWTPayload {
    let iss: String
    let iat: Int64

    /// Checks nothing: expiry and team are the simulator's own rules, applied per request against the clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
