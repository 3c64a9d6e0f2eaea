import Foundation
import JWTKit

/// Signs the RS256 JWT a service account exchanges for an access token (RFC 7523, providers.md §2.2).
public struct FCMAssertionSigner: Sendable {
    /// The scope FCM sends need.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long an assertion is valid: Google's maximum, one hour.
    public static let lifetime = 3600

    private struct Claims: JWTPayload {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int
        let exp: Int

        // Google checks the claims; signing needs no local verification.
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private let keys: JWTKeyCollection
    private let keyID: JWKIdentifier?
    /// The `iss` claim.
    public let issuer: String
    /// The `aud` claim: the token endpoint the assertion is sent to.
    public let audience: String

    /// Creates a signer for `account`, addressing assertions to `audience` (the token endpoint used).
    ///
    /// Herald puts the endpoint it actually calls in `aud` rather than Google's constant, so that a simulator
    /// written into `token_uri` can check its own URL; for real accounts the two are the same.
    public init(account: FCMServiceAccount, audience: String) async {
        let keyID = account.privateKeyID.map { JWKIdentifier(string: $0) }
        self.keys = await JWTKeyCollection().add(rsa: account.privateKey, digestAlgorithm: .sha256, kid: keyID)
        self.keyID = keyID
        self.issuer = account.clientEmail
        self.audience = audience
    }

    /// A signed assertion issued at `issuedAt`, valid for ``lifetime`` seconds.
    public func assertion(issuedAt: Date = Date()) async throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        let claims = Claims(iss: issuer, scope: Self.scope, aud: audience, iat: iat, exp: iat + Self.lifetime)
        return try await keys.sign(claims, kid: keyID)
    }
}
