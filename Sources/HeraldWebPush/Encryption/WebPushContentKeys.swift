import Crypto

/// The content-encryption key and nonce of one Web Push message (RFC 8291 §3.3–3.4 with RFC 8188 §2.2–2.3).
///
/// Derived from the ECDH secret between the message's ephemeral key and the user agent's key, the subscription's
/// authentication secret, and the message's salt. Both sides derive the same values; the push service never can.
public struct WebPushContentKeys: Sendable, Equatable {
    /// `IKM`: the key material combining the ECDH secret and the authentication secret (32 bytes).
    public let inputKeyingMaterial: [UInt8]
    /// `CEK`: the AES-128-GCM key (16 bytes).
    public let contentEncryptionKey: [UInt8]
    /// `NONCE`: the AES-GCM nonce of the single record (12 bytes).
    public let nonce: [UInt8]

    /// Derives the keys.
    ///
    /// - Parameters:
    ///   - sharedSecret: `ecdh_secret`, the x coordinate of the ECDH result (32 bytes).
    ///   - authSecret: the subscription's `auth` (16 bytes).
    ///   - userAgentPublicKey: `ua_public`, 65 bytes uncompressed.
    ///   - applicationServerPublicKey: `as_public`, the ephemeral key's 65 bytes uncompressed.
    ///   - salt: the message's 16-byte salt.
    public init(
        sharedSecret: [UInt8], authSecret: [UInt8], userAgentPublicKey: [UInt8], applicationServerPublicKey: [UInt8], salt: [UInt8]
    ) {
        // RFC 8291 §3.4: key_info = "WebPush: info" || 0x00 || ua_public || as_public.
        var keyInfo = Array("WebPush: info".utf8)
        keyInfo.append(0)
        keyInfo += userAgentPublicKey
        keyInfo += applicationServerPublicKey
        let combiningKey = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: sharedSecret), salt: authSecret)
        let ikm = HKDF<SHA256>.expand(pseudoRandomKey: combiningKey, info: keyInfo, outputByteCount: 32)

        // RFC 8188 §2.2–2.3, with the message's salt.
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Self.contentEncryptionKeyInfo, outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Self.nonceInfo, outputByteCount: 12)
        self.inputKeyingMaterial = ikm.withUnsafeBytes { Array($0) }
        self.contentEncryptionKey = cek.withUnsafeBytes { Array($0) }
        self.nonce = nonce.withUnsafeBytes { Array($0) }
    }

    /// `cek_info` = "Content-Encoding: aes128gcm" || 0x00.
    static let contentEncryptionKeyInfo: [UInt8] = Array("Content-Encoding: aes128gcm".utf8) + [0]
    /// `nonce_info` = "Content-Encoding: nonce" || 0x00.
    static let nonceInfo: [UInt8] = Array("Content-Encoding: nonce".utf8) + [0]
}
