import Crypto
import JWTKit
import Synchronization

/// Verifies APNs provider tokens (ES256 JWTs) and remembers the verdict per token string.
///
/// Clients reuse one token for up to an hour across thousands of requests, so the signature is checked once per
/// distinct token; what depends on the clock (age, future `iat`) is checked on every request by the caller.
final class APNsProviderTokenVerifier: Sendable {
    /// The verifier keeps at most this many verdicts; beyond, it forgets them all (tokens are cheap to re-verify).
    static let cacheLimit = 10_000

    private let algorithms: [String: any JWTAlgorithm]
    private let parser = DefaultJWTParser()
    private let cache = Mutex<[String: APNsVerifiedProviderToken?]>([:])

    private init(algorithms: [String: any JWTAlgorithm]) {
        self.algorithms = algorithms
    }

    /// Builds a verifier for `keys` (key id → P-256 public key).
    ///
    /// The keys go through jwt-kit's `JWTKeyCollection` so that its ES256 implementation does the verification;
    /// that implementation reads signatures with `P256.Signing.ECDSASignature(rawRepresentation:)`, which accepts
    /// only the 64-byte `R‖S` form APNs requires and rejects DER.
    static func make(keys: [String: P256.Signing.PublicKey]) async throws -> APNsProviderTokenVerifier {
        let collection = JWTKeyCollection()
        var algorithms: [String: any JWTAlgorithm] = [:]
        for (keyID, key) in keys {
            let identifier = JWKIdentifier(string: keyID)
            await collection.add(ecdsa: try ES256PublicKey(backing: key), kid: identifier)
            algorithms[keyID] = try await collection.getKey(for: identifier, alg: "ES256")
        }
        return APNsProviderTokenVerifier(algorithms: algorithms)
    }

    /// The verified claims of `token` (the text after `bearer `), or `nil` when it is malformed, names an unknown
    /// key or another algorithm, or its signature does not verify.
    func verify(_ token: String) -> APNsVerifiedProviderToken? {
        if let cached = self.cache.withLock({ $0[token] }) {
            return cached
        }
        let verdict = self.verifyUncached(token)
        self.cache.withLock { cache in
            if cache.count >= Self.cacheLimit {
                cache.removeAll(keepingCapacity: true)
            }
            cache[token] = verdict
        }
        return verdict
    }

    private func verifyUncached(_ token: String) -> APNsVerifiedProviderToken? {
        let bytes = Array(token.utf8)
        guard let (header, claims, signature) = try? self.parser.parse(bytes, as: APNsProviderTokenClaims.self),
            header.alg == "ES256",
            let keyID = header.kid,
            let algorithm = self.algorithms[keyID],
            let lastDot = bytes.lastIndex(of: UInt8(ascii: "."))
        else {
            return nil
        }
        guard (try? algorithm.verify(signature, signs: bytes[..<lastDot])) == true else {
            return nil
        }
        return APNsVerifiedProviderToken(keyID: keyID, teamID: claims.iss, issuedAt: claims.iat)
    }
}
