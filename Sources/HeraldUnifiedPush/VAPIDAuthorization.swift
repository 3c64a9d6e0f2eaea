import Crypto
import Foundation
import HeraldCore

/// RFC 8292 on the receiving side: a push to a topic bound to an application server's key must
/// carry `Authorization: vapid t=<JWT>, k=<key>` with that key, an ES256 signature by it, `aud`
/// the push server's origin and an `exp` not passed (and at most a day ahead).
struct VAPIDAuthorization: Sendable {
    /// The JWT and the key, as sent.
    let token: String
    let key: String

    /// Reads `vapid t=…, k=…` (scheme case-insensitive, parameters in any order, optionally quoted).
    init?(header: String) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "vapid" else { return nil }
        var token: String?
        var key: String?
        for parameter in trimmed[space...].split(separator: ",") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            let value = pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
            switch pair[0].lowercased() {
            case "t": token = value
            case "k": key = value
            default: continue
            }
        }
        guard let token, !token.isEmpty, let key, !key.isEmpty else { return nil }
        self.token = token
        self.key = key
    }

    /// Whether it is valid for a topic bound to `boundKey` on `origin` at `now` (Unix seconds).
    func isValid(boundKey: String, origin: String, now: Int64) -> Bool {
        guard Self.sameKey(key, boundKey), let keyBytes = Base64URL.decode(key), keyBytes.count == 65,
            let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes)
        else { return false }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])), let claimBytes = Base64URL.decode(String(parts[1])),
            let signatureBytes = Base64URL.decode(String(parts[2])),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            case .string("ES256")? = (try? JSONBodyParser.parse(headerBytes))?["alg"],
            let claims = try? JSONBodyParser.parse(claimBytes)
        else { return false }
        let signingInput = Array(token.utf8[..<token.utf8.lastIndex(of: UInt8(ascii: "."))!])
        guard publicKey.isValidSignature(signature, for: SHA256.hash(data: signingInput)) else { return false }
        guard case .string(let audience)? = claims["aud"], audience == origin,
            let expiry = claims["exp"]?.scalarText.flatMap({ Double($0) }), Double(now) <= expiry, expiry <= Double(now) + 86_400
        else { return false }
        return true
    }

    /// Keys compared as the bytes they encode (padding and alphabet may differ between senders).
    static func sameKey(_ a: String, _ b: String) -> Bool {
        guard let left = Base64URL.decode(a), let right = Base64URL.decode(b) else { return false }
        return left == right
    }
}
