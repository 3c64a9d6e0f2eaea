import Crypto

/// RFC 8291 message encryption: the `aes128gcm` content coding of RFC 8188 with a single record.
///
/// The body is `salt(16) ‖ rs(4, big-endian) ‖ idlen(1) = 65 ‖ keyid(65) = as_public ‖ ciphertext`, where the
/// ciphertext is AES-128-GCM of `plaintext ‖ 0x02` (the last-record delimiter, no padding) with its 16-byte tag.
///
/// ```swift
/// let body = try WebPushEncryption.encrypt(Array(json.utf8), for: subscription)
/// ```
public enum WebPushEncryption {
    /// The record size written in the header: 4096, as browsers and libraries use.
    public static let recordSize: UInt32 = 4096
    /// The header's length: salt, record size, key id length and the 65-byte key id.
    public static let headerLength = 86
    /// The largest body every push service must accept (RFC 8030 §7.2).
    public static let maximumBodyLength = 4096
    /// The largest plaintext whose body fits in ``maximumBodyLength``: 4096 − 86 − 16 (tag) − 1 (delimiter).
    public static let maximumPlaintextLength = maximumBodyLength - headerLength - 16 - 1

    /// Encrypts `plaintext` for `subscription` with a fresh ephemeral key pair and a random salt.
    public static func encrypt(_ plaintext: [UInt8], for subscription: WebPushSubscription) throws(WebPushEncryptionError) -> [UInt8] {
        let salt = SymmetricKey(size: .init(bitCount: 128)).withUnsafeBytes { Array($0) }
        return try encrypt(
            plaintext,
            userAgentPublicKey: subscription.userAgentPublicKey,
            authSecret: subscription.authSecret,
            ephemeralKey: P256.KeyAgreement.PrivateKey(),
            salt: salt
        )
    }

    /// Encrypts `plaintext` with the given ephemeral key and salt: what a test vector needs to be reproduced.
    ///
    /// Never reuse an ephemeral key or salt for two messages outside tests: the nonce would repeat.
    public static func encrypt(
        _ plaintext: [UInt8],
        userAgentPublicKey: P256.KeyAgreement.PublicKey,
        authSecret: [UInt8],
        ephemeralKey: P256.KeyAgreement.PrivateKey,
        salt: [UInt8],
        recordSize: UInt32 = recordSize
    ) throws(WebPushEncryptionError) -> [UInt8] {
        guard salt.count == 16 else { throw .invalidSalt(length: salt.count) }
        guard recordSize >= 18 else { throw .invalidRecordSize(recordSize) }
        // RFC 8291 §4: rs must exceed plaintext + delimiter + tag, so the whole message is one record.
        let limit = Int(recordSize) - 18
        guard plaintext.count <= limit else { throw .plaintextTooLarge(length: plaintext.count, limit: limit) }

        let sharedSecret: [UInt8]
        do {
            sharedSecret = try ephemeralKey.sharedSecretFromKeyAgreement(with: userAgentPublicKey).withUnsafeBytes { Array($0) }
        } catch {
            throw .keyAgreementFailed
        }
        let applicationServerPublicKey = Array(ephemeralKey.publicKey.x963Representation)
        let keys = WebPushContentKeys(
            sharedSecret: sharedSecret,
            authSecret: authSecret,
            userAgentPublicKey: Array(userAgentPublicKey.x963Representation),
            applicationServerPublicKey: applicationServerPublicKey,
            salt: salt
        )

        var record = plaintext
        record.append(0x02)
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(record, using: SymmetricKey(data: keys.contentEncryptionKey), nonce: AES.GCM.Nonce(data: keys.nonce))
        } catch {
            throw .sealFailed
        }

        var body: [UInt8] = []
        body.reserveCapacity(headerLength + record.count + 16)
        body += salt
        body += [UInt8(truncatingIfNeeded: recordSize >> 24), UInt8(truncatingIfNeeded: recordSize >> 16),
                 UInt8(truncatingIfNeeded: recordSize >> 8), UInt8(truncatingIfNeeded: recordSize)]
        body.append(UInt8(applicationServerPublicKey.count))
        body += applicationServerPublicKey
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }
}
