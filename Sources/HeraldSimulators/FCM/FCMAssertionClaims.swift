import JWTKit

/// The claims of a service account's JWT-bearer assertion (providers.md §2.2).
struct FCMAssertionClaims: JWTPayload {
    let iss: String
    let scope: String?
    let aud: String
    let iat: Double
    let exp: Double

    // The token endpoint checks the claims itself, against its own clock and URL.
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
