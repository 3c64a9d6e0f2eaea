import Crypto
import Foundation
import HeraldCore

/// An application server's VAPID key pair (RFC 8292): a P-256 key that signs the `vapid` JWTs.
///
/// Browsers subscribe with the public key as `applicationServerKey` (``publicKeyBase64URL``); push services check
/// every request's JWT against it.
///
/// ```swift
/// let key = VAPIDKey()                        // herald vapid generate
/// try key.write(toFile: "vapid.pem")
/// let again = try VAPIDKey(contentsOfFile: "vapid.pem")
/// again.publicKeyBase64URL                    // "BN…", 87 characters
/// ```
public struct VAPIDKey: Sendable {
    /// The signing key.
    public let privateKey: P256.Signing.PrivateKey

    /// Generates a new key pair.
    public init() {
        self.privateKey = P256.Signing.PrivateKey()
    }

    /// Wraps an existing private key.
    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Reads a PEM private key (PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`) or the base64url of the raw 32-byte
    /// private scalar, as web-push libraries print it.
    public init(text: String) throws(VAPIDKeyError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN") {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: trimmed) else { throw .notAKey }
            self.privateKey = key
        } else {
            guard let scalar = Base64URL.decode(trimmed), scalar.count == 32,
                let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar)
            else { throw .notAKey }
            self.privateKey = key
        }
    }

    /// Reads a key file written by ``write(toFile:)`` (or any text ``init(text:)`` accepts).
    public init(contentsOfFile path: String) throws(VAPIDKeyError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .unreadableFile(path) }
        try self.init(text: text)
    }

    /// The private key as PKCS#8 PEM.
    public var pemRepresentation: String { privateKey.pemRepresentation }

    /// The public key as a 65-byte uncompressed point (`0x04 ‖ x ‖ y`).
    public var publicKeyBytes: [UInt8] { Array(privateKey.publicKey.x963Representation) }

    /// The public key as unpadded base64url (87 characters): the browser's `applicationServerKey` and the `k` of
    /// the `Authorization` header.
    public var publicKeyBase64URL: String { Base64URL.encode(publicKeyBytes) }

    /// The private scalar as unpadded base64url (43 characters), the form web-push libraries take.
    public var privateKeyBase64URL: String { Base64URL.encode(privateKey.rawRepresentation) }

    /// Writes the private key as PEM to `path`, readable by the owner only.
    public func write(toFile path: String) throws(VAPIDKeyError) {
        // Created empty with owner-only permissions first, so the secret is never readable by others.
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw .unwritableFile(path)
        }
        do {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            try Data((pemRepresentation + "\n").utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw .unwritableFile(path)
        }
    }
}
