import JWTKit
import _CryptoExtras

/// Checks the RS256 signature of assertions against the simulator's service accounts.
///
/// Runs synchronously on the event loop: jwt-kit's key collection is async, so the RS256 algorithms are taken from
/// it once, when the simulator starts.
final class FCMAssertionVerifier: Sendable {
    /// A parsed assertion whose signature verified.
    struct Verified: Sendable {
        let account: FCMTestServiceAccount
        let claims: FCMAssertionClaims
    }

    /// Why an assertion was refused, in the token endpoint's words.
    enum Failure: Error {
        /// Not three base64url parts of JSON with the expected claims.
        case malformed
        /// `alg` is not RS256.
        case algorithm(String)
        /// No account has this `iss`.
        case unknownAccount
        /// The key id or the signature does not match.
        case signature
    }

    private struct Key: Sendable {
        let account: FCMTestServiceAccount
        let algorithm: any JWTAlgorithm
    }

    /// Keys by account e-mail, then by key id.
    private let keys: [String: [String: Key]]
    private let parser = DefaultJWTParser()

    private init(keys: [String: [String: Key]]) {
        self.keys = keys
    }

    /// Builds a verifier for `accounts`.
    static func make(accounts: [FCMTestServiceAccount]) async throws -> FCMAssertionVerifier {
        let collection = JWTKeyCollection()
        var keys: [String: [String: Key]] = [:]
        for account in accounts {
            let identifier = JWKIdentifier(string: account.privateKeyID)
            await collection.add(
                rsa: try JWTKit.Insecure.RSA.PublicKey(backing: account.publicKey), digestAlgorithm: .sha256, kid: identifier)
            let algorithm = try await collection.getKey(for: identifier, alg: "RS256")
            keys[account.clientEmail, default: [:]][account.privateKeyID] = Key(account: account, algorithm: algorithm)
        }
        return FCMAssertionVerifier(keys: keys)
    }

    /// Parses `assertion` and verifies its signature with the key of its `iss` (and `kid`, when given).
    func verify(_ assertion: String) -> Result<Verified, Failure> {
        let bytes = Array(assertion.utf8)
        guard let (header, claims, signature) = try? self.parser.parse(bytes, as: FCMAssertionClaims.self),
            let lastDot = bytes.lastIndex(of: UInt8(ascii: "."))
        else {
            return .failure(.malformed)
        }
        guard header.alg == "RS256" else {
            return .failure(.algorithm(header.alg ?? "none"))
        }
        guard let accountKeys = self.keys[claims.iss] else {
            return .failure(.unknownAccount)
        }
        let key: Key?
        if let keyID = header.kid {
            key = accountKeys[keyID]
        } else {
            // Without `kid` Google tries the account's keys; the simulator's accounts have one each.
            key = accountKeys.values.first
        }
        guard let key, (try? key.algorithm.verify(signature, signs: bytes[..<lastDot])) == true else {
            return .failure(.signature)
        }
        return .success(Verified(account: key.account, claims: claims))
    }
}
