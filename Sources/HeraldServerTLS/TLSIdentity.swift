import HeraldConfiguration
import HeraldCore
import NIOSSL

/// A certificate chain and the private key of its leaf, parsed and checked to belong together:
/// what one TLS handshake presents.
public struct TLSIdentity: Sendable {
    /// The chain, leaf first.
    public let certificateChain: [NIOSSLCertificate]
    /// The leaf's private key.
    public let privateKey: NIOSSLPrivateKey

    /// The leaf certificate.
    public var leaf: NIOSSLCertificate { certificateChain[0] }

    /// The leaf's serial number in hexadecimal, which log lines name (it is public: every client sees it).
    public var serialNumber: String {
        leaf.serialNumber.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    /// Parses files read from `settings`; errors are configuration errors naming the key of the file at fault.
    ///
    /// Messages name files and what is wrong with them, never their contents or the password.
    public init(material: HeraldConfiguration.ListenerTLS.Material, settings: HeraldConfiguration.ListenerTLS) throws(ConfigurationError) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(material.certificateChainPEM.utf8))
        } catch {
            throw ConfigurationError(
                key: settings.keyPath("cert_file"), "\(settings.certificateFile) holds no valid PEM certificate (\(error))")
        }
        guard !chain.isEmpty else {
            throw ConfigurationError(key: settings.keyPath("cert_file"), "\(settings.certificateFile) holds no PEM certificate")
        }

        let encrypted = material.privateKeyIsEncrypted
        if encrypted, material.keyPassword == nil {
            throw ConfigurationError(
                key: settings.keyPath("key_password_file"),
                "the private key in \(settings.keyFile) is encrypted; name the file holding its password here")
        }
        let key: NIOSSLPrivateKey
        do {
            // Always a callback: without one BoringSSL may ask for the password on the terminal.
            let password = Array((material.keyPassword ?? "").utf8)
            key = try NIOSSLPrivateKey(bytes: Array(material.privateKeyPEM.utf8), format: .pem) { setPassword in
                setPassword(password)
            }
        } catch {
            if encrypted, let passwordFile = settings.keyPasswordFile {
                throw ConfigurationError(
                    key: settings.keyPath("key_password_file"),
                    "cannot decrypt the private key in \(settings.keyFile) with the password in \(passwordFile) (wrong password?)")
            }
            throw ConfigurationError(key: settings.keyPath("key_file"), "\(settings.keyFile) holds no valid PEM private key")
        }

        // BoringSSL refuses a key that does not match the leaf when a context is made from both,
        // which is what a handshake would do; better to learn it here than from every client.
        do {
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw ConfigurationError(
                key: settings.keyPath("key_file"),
                "the private key in \(settings.keyFile) does not belong to the certificate in \(settings.certificateFile)")
        }
        self.certificateChain = chain
        self.privateKey = key
    }

    /// Reads and parses the files `settings` names, as they are now.
    public init(settings: HeraldConfiguration.ListenerTLS) throws(ConfigurationError) {
        try self.init(material: settings.read(), settings: settings)
    }
}
