import Crypto
import Foundation
import JWTKit
import Synchronization

/// Checks the `Authorization: vapid t=<JWT>, k=<key>` header of a push request as RFC 8292 §3–4 describe.
///
/// Clients reuse one JWT for hours, so a signature is verified once per distinct `t`/`k` pair; what depends on the
/// clock and the subscription (expiry, audience, key restriction) is checked on every request.
final class WebPushVAPIDVerifier: Sendable {
    /// The verdict on one request's credentials.
    enum Verdict: Sendable, Equatable {
        /// No usable credentials: `401`.
        case missing(reason: String)
        /// Credentials that do not verify or do not fit this request: `403`.
        case invalid(reason: String)
        /// Valid: the signing key (65 bytes) and the `sub` contact.
        case valid(key: [UInt8], subject: String)
    }

    /// A token whose signature verified with its `k`.
    private struct Verified: Sendable {
        let key: [UInt8]
        let claims: WebPushVAPIDClaims
    }

    /// The verifier keeps at most this many verdicts; beyond, it forgets them all (tokens are cheap to re-verify).
    static let cacheLimit = 10_000
    /// RFC 8292 §2: `exp` must be no more than 24 hours after the request.
    static let maximumLifetime: Double = 86_400

    private let parser = DefaultJWTParser()
    private let cache = Mutex<[String: Verified?]>([:])

    init() {}

    /// Checks `authorization` for a push resource on `origin` at `now`, allowing `clockSkew` seconds either way.
    func verify(_ authorization: String?, origin: String, now: Date, clockSkew: Double) async -> Verdict {
        guard let authorization else { return .missing(reason: "no Authorization header") }
        guard let (token, keyText) = Self.parse(authorization) else {
            return .missing(reason: "Authorization is not the vapid scheme with t and k")
        }
        let cacheKey = token + " " + keyText
        let verified: Verified?
        if let cached = cache.withLock({ $0[cacheKey] }) {
            verified = cached
        } else {
            verified = await verifySignature(token: token, keyText: keyText)
            cache.withLock { cache in
                if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[cacheKey] = verified
            }
        }
        guard let verified else { return .invalid(reason: "JWT is malformed, not ES256, or its signature does not verify with k") }

        let claims = verified.claims
        guard let audience = claims.aud else { return .invalid(reason: "JWT has no aud") }
        guard audience == origin else { return .invalid(reason: "aud \(audience) is not the push service origin \(origin)") }
        guard let expiry = claims.exp else { return .invalid(reason: "JWT has no exp") }
        let seconds = now.timeIntervalSince1970
        guard expiry + clockSkew >= seconds else { return .invalid(reason: "JWT expired") }
        guard expiry <= seconds + Self.maximumLifetime + clockSkew else { return .invalid(reason: "exp is more than 24 hours ahead") }
        guard let subject = claims.sub, Self.isContact(subject) else {
            return .invalid(reason: "sub is missing or not a mailto: or https: URI")
        }
        return .valid(key: verified.key, subject: subject)
    }

    /// `t` and `k` from `vapid t=…, k=…` (scheme case-insensitive, parameters in any order, optionally quoted,
    /// with or without a space after the comma; unknown parameters ignored).
    static func parse(_ header: String) -> (token: String, key: String)? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "vapid" else { return nil }
        var token: String?
        var key: String?
        for parameter in trimmed[space...].split(separator: ",") {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = parameter[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            switch name {
            case "t": token = value
            case "k": key = value
            default: continue
            }
        }
        guard let token, !token.isEmpty, let key, !key.isEmpty else { return nil }
        return (token, key)
    }

    /// Whether `subject` is a `mailto:` or `https:` URI, as Apple's service insists.
    static func isContact(_ subject: String) -> Bool {
        (subject.hasPrefix("mailto:") && subject.dropFirst(7).contains("@")) || (subject.hasPrefix("https://") && subject.count > 8)
    }

    private func verifySignature(token: String, keyText: String) async -> Verified? {
        guard let keyBytes = WebPushBase64URL.decode(keyText), keyBytes.count == 65, keyBytes[0] == 0x04,
            let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes),
            let jwtKey = try? ES256PublicKey(backing: publicKey)
        else { return nil }
        let bytes = Array(token.utf8)
        guard let (header, claims, signature) = try? parser.parse(bytes, as: WebPushVAPIDClaims.self),
            header.alg == "ES256",
            let lastDot = bytes.lastIndex(of: UInt8(ascii: "."))
        else { return nil }
        // jwt-kit's ES256 reads the signature with `ECDSASignature(rawRepresentation:)`: only the 64-byte R‖S form
        // RFC 8292 requires verifies, never DER.
        let collection = await JWTKeyCollection().add(ecdsa: jwtKey)
        guard let algorithm = try? await collection.getKey(alg: "ES256"),
            (try? algorithm.verify(signature, signs: bytes[..<lastDot])) == true
        else { return nil }
        return Verified(key: keyBytes, claims: claims)
    }
}
