import Crypto

/// The keys a browser creates for one push subscription, and the decryption it does on receipt (RFC 8291, the user
/// agent's side): what lets the simulator read what an application server sent.
///
/// Implemented apart from Herald's encryption on purpose, so that each checks the other.
public struct WebPushUserAgentKeys: Sendable {
    /// `ua_private`: the subscription's ECDH private key.
    public let privateKey: P256.KeyAgreement.PrivateKey
    /// The 16-byte authentication secret.
    public let authSecret: [UInt8]

    /// Generates keys as a browser does when subscribing.
    public init() {
        self.privateKey = P256.KeyAgreement.PrivateKey()
        self.authSecret = SymmetricKey(size: .init(bitCount: 128)).withUnsafeBytes { Array($0) }
    }

    /// Uses given keys (a test vector's).
    public init(privateKey: P256.KeyAgreement.PrivateKey, authSecret: [UInt8]) {
        self.privateKey = privateKey
        self.authSecret = authSecret
    }

    /// `keys.p256dh`: the public key, uncompressed, unpadded base64url.
    public var p256dh: String { WebPushBase64URL.encode(Array(privateKey.publicKey.x963Representation)) }

    /// `keys.auth`: the authentication secret, unpadded base64url.
    public var auth: String { WebPushBase64URL.encode(authSecret) }

    /// Decrypts an `aes128gcm` body: header, single record, `0x02` delimiter, optional zero padding.
    public func decrypt(_ body: [UInt8]) throws(WebPushDecryptionError) -> [UInt8] {
        // salt(16) ‖ rs(4) ‖ idlen(1) ‖ keyid(idlen) ‖ record.
        guard body.count >= 21 else { throw .truncated(length: body.count) }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard recordSize >= 18 else { throw .invalidRecordSize(recordSize) }
        let keyIDLength = Int(body[20])
        guard keyIDLength == 65 else { throw .invalidKeyIDLength(keyIDLength) }
        guard body.count >= 21 + keyIDLength + 17 else { throw .truncated(length: body.count) }
        let senderKeyBytes = Array(body[21..<(21 + keyIDLength)])
        guard senderKeyBytes[0] == 0x04, let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: senderKeyBytes) else {
            throw .invalidSenderKey
        }
        let record = body[(21 + keyIDLength)...]
        guard record.count <= Int(recordSize) else { throw .recordTooLarge(length: record.count, recordSize: recordSize) }

        guard let shared = try? privateKey.sharedSecretFromKeyAgreement(with: senderKey) else { throw .invalidSenderKey }
        let receiverKeyBytes = Array(privateKey.publicKey.x963Representation)
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverKeyBytes + senderKeyBytes
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)

        let padded: [UInt8]
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }),
                ciphertext: record.dropLast(16),
                tag: record.suffix(16))
            padded = Array(try AES.GCM.open(box, using: contentKey))
        } catch {
            throw .authenticationFailed
        }
        // RFC 8188 §2: the delimiter is the last non-zero byte; 0x02 marks the last (here: only) record.
        guard let delimiterIndex = padded.lastIndex(where: { $0 != 0 }) else { throw .invalidDelimiter(nil) }
        guard padded[delimiterIndex] == 0x02 else { throw .invalidDelimiter(padded[delimiterIndex]) }
        return Array(padded[..<delimiterIndex])
    }
}
