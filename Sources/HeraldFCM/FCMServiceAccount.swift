import HeraldCore
import JWTKit

/// The fields of a Google service-account key file that the FCM OAuth flow uses (providers.md §2.2).
///
/// The private key is kept only to sign assertions; it never appears in ``description``, in errors or in logs.
public struct FCMServiceAccount: Sendable, CustomStringConvertible {
    /// Google's token endpoint, used when the file has no `token_uri`.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    /// The Firebase project the provider sends to (`project_id`).
    public let projectID: String
    /// The service account's identity, the assertion's `iss` (`client_email`).
    public let clientEmail: String
    /// The key's id, the assertion's `kid` header (`private_key_id`), when the file has one.
    public let privateKeyID: String?
    /// Where assertions are exchanged for access tokens (`token_uri`).
    public let tokenURI: String
    /// The RSA signing key (`private_key`, PKCS#8 PEM).
    let privateKey: JWTKit.Insecure.RSA.PrivateKey

    /// Reads a service-account JSON key.
    ///
    /// - Parameters:
    ///   - json: The file's text.
    ///   - keyPath: The configuration key the text came from, named in errors.
    /// - Throws: ``ConfigurationError`` naming `keyPath` and the missing or bad field, never the key itself.
    public init(json: String, keyPath: String) throws(ConfigurationError) {
        let document: BodyValue
        do {
            document = try JSONBodyParser.parse(json)
        } catch {
            throw ConfigurationError(key: keyPath, "is not a service-account JSON document")
        }
        guard document.objectMembers != nil else {
            throw ConfigurationError(key: keyPath, "is not a service-account JSON document")
        }
        func field(_ name: String, required: Bool) throws(ConfigurationError) -> String? {
            switch document[name] {
            case .string(let text) where !text.isEmpty: return text
            case nil, .null?, .string?:
                if required { throw ConfigurationError(key: keyPath, "has no \"\(name)\"") }
                return nil
            default: throw ConfigurationError(key: keyPath, "\"\(name)\" must be a string")
            }
        }
        if let type = try field("type", required: false), type != "service_account" {
            throw ConfigurationError(key: keyPath, "\"type\" is \"\(type)\", expected \"service_account\"")
        }
        self.projectID = try field("project_id", required: true)!
        self.clientEmail = try field("client_email", required: true)!
        self.privateKeyID = try field("private_key_id", required: false)
        let tokenURI = try field("token_uri", required: false) ?? Self.defaultTokenURI
        guard ServiceEndpoint(url: tokenURI) != nil else {
            throw ConfigurationError(key: keyPath, "\"token_uri\" is not an http or https URL")
        }
        self.tokenURI = tokenURI
        let pem = try field("private_key", required: true)!
        do {
            self.privateKey = try JWTKit.Insecure.RSA.PrivateKey(pem: pem)
        } catch {
            // The underlying error could quote the PEM; say only what is wrong.
            throw ConfigurationError(key: keyPath, "\"private_key\" is not an RSA private key in PEM (at least 2048 bits)")
        }
    }

    public var description: String {
        "FCMServiceAccount(project: \(projectID), client: \(clientEmail))"
    }
}
