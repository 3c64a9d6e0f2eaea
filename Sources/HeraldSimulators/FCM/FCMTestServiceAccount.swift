import Foundation
import _CryptoExtras

/// A generated Google service account for tests and `herald simulate`: an RSA key pair and the identity an
/// ``FCMSimulator`` accepts assertions from.
///
/// Herald's `fcm` kind reads the key file it writes (``write(to:tokenURI:)``); pointing `token_uri` at the
/// simulator's ``FCMSimulator/tokenURL`` sends the OAuth exchange there, as Google's own libraries would.
///
/// ```swift
/// let account = try FCMTestServiceAccount(projectID: "herald-test")
/// let simulator = FCMSimulator(configuration: .init(serviceAccounts: [account], certificateAuthority: authority))
/// _ = try await simulator.start()
/// try account.write(to: "service-account.json", tokenURI: simulator.tokenURL!)
/// ```
public struct FCMTestServiceAccount: Sendable {
    /// The Firebase project the account may send to (`project_id`).
    public let projectID: String
    /// The account's identity, the assertion's `iss` (`client_email`).
    public let clientEmail: String
    /// The key's id, the assertion's `kid` (`private_key_id`): 40 hex digits, as Google issues them.
    public let privateKeyID: String
    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), as in Google's key files.
    public let privateKeyPEM: String
    /// The public key as PEM (SubjectPublicKeyInfo).
    public let publicKeyPEM: String
    /// The key the simulator verifies assertions with.
    let publicKey: _RSA.Signing.PublicKey

    /// Generates an account with a new 2048-bit RSA key.
    ///
    /// - Parameters:
    ///   - projectID: The Firebase project id.
    ///   - clientEmail: The account's e-mail; defaults to `firebase-adminsdk@<projectID>.iam.gserviceaccount.com`.
    public init(projectID: String = "herald-simulator", clientEmail: String? = nil) throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.projectID = projectID
        self.clientEmail = clientEmail ?? "firebase-adminsdk@\(projectID).iam.gserviceaccount.com"
        var generator = SystemRandomNumberGenerator()
        self.privateKeyID = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        self.privateKeyPEM = key.pkcs8PEMRepresentation
        self.publicKeyPEM = key.publicKey.pemRepresentation
        self.publicKey = key.publicKey
    }

    /// The key file's JSON text, in the layout of the files Google issues, with `token_uri` = `tokenURI`.
    public func json(tokenURI: String) -> String {
        let fields: [(String, String)] = [
            ("type", "service_account"),
            ("project_id", projectID),
            ("private_key_id", privateKeyID),
            ("private_key", privateKeyPEM),
            ("client_email", clientEmail),
            ("client_id", "100000000000000000000"),
            ("auth_uri", "https://accounts.google.com/o/oauth2/auth"),
            ("token_uri", tokenURI),
            ("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs"),
            ("universe_domain", "googleapis.com"),
        ]
        let members = fields.map { "  \(FCMJSONText.quoted($0.0)): \(FCMJSONText.quoted($0.1))" }
        return "{\n" + members.joined(separator: ",\n") + "\n}\n"
    }

    /// Writes ``json(tokenURI:)`` to `path`, readable by the owner only (it holds a private key).
    public func write(to path: String, tokenURI: String) throws {
        try json(tokenURI: tokenURI).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
