import Crypto
import HeraldCore

/// A compact JWS taken apart, to check a VAPID token independently of the code that made it.
struct InspectedJWT {
    let header: BodyValue
    let claims: BodyValue
    let signingInput: [UInt8]
    let signature: [UInt8]

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = Base64URL.decode(String(parts[0])).flatMap({ try? JSONBodyParser.parse($0) }),
            let claims = Base64URL.decode(String(parts[1])).flatMap({ try? JSONBodyParser.parse($0) }),
            let signature = Base64URL.decode(String(parts[2]))
        else { return nil }
        self.header = header
        self.claims = claims
        self.signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    /// Whether the signature is a raw 64-byte ES256 `R‖S` that verifies with the uncompressed point `key`.
    func verifies(withKey key: [UInt8]) -> Bool {
        guard signature.count == 64,
            let publicKey = try? P256.Signing.PublicKey(x963Representation: key),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        return publicKey.isValidSignature(ecdsa, for: SHA256.hash(data: signingInput))
    }

    /// The integer claim `name`.
    func integer(_ name: String) -> Int64? {
        if case .number(let literal)? = claims[name] { return Int64(literal) }
        return nil
    }

    /// The string claim `name`.
    func string(_ name: String) -> String? {
        if case .string(let text)? = claims[name] { return text }
        return nil
    }
}

/// The `t` and `k` of `vapid t=…, k=…`.
func vapidParameters(_ header: String) -> (token: String, key: String)? {
    guard header.hasPrefix("vapid ") else { return nil }
    var token: String?
    var key: String?
    for part in header.dropFirst(6).split(separator: ",") {
        let trimmed = part.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("t=") { token = String(trimmed.dropFirst(2)) }
        if trimmed.hasPrefix("k=") { key = String(trimmed.dropFirst(2)) }
    }
    guard let token, let key else { return nil }
    return (token, key)
}
