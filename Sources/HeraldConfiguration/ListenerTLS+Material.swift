extension HeraldConfiguration.ListenerTLS {
    /// The contents of a listener's TLS files, as read at one moment.
    ///
    /// It holds the private key and its password, so it prints neither.
    public struct Material: Sendable, Equatable {
        /// The certificate chain's PEM text.
        public var certificateChainPEM: String
        /// The private key's PEM text.
        public var privateKeyPEM: String
        /// The key's password, when a password file is configured.
        public var keyPassword: String?

        /// Creates the material.
        public init(certificateChainPEM: String, privateKeyPEM: String, keyPassword: String? = nil) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
            self.keyPassword = keyPassword
        }

        /// Whether the key's PEM says it is encrypted (PKCS #8 `ENCRYPTED PRIVATE KEY`, or the
        /// legacy `Proc-Type: 4,ENCRYPTED` header), so a missing password can be named as such.
        public var privateKeyIsEncrypted: Bool {
            privateKeyPEM.contains("ENCRYPTED")
        }
    }
}

extension HeraldConfiguration.ListenerTLS.Material: CustomStringConvertible, CustomDebugStringConvertible {
    /// The material without its secrets, so printing it never prints a key or a password.
    public var description: String {
        "ListenerTLS.Material(certificateChainPEM: \(certificateChainPEM.utf8.count) bytes, privateKeyPEM: <redacted>, keyPassword: "
            + (keyPassword == nil ? "nil" : "<redacted>") + ")"
    }

    /// Same as ``description``: debug output must not reveal the secrets either.
    public var debugDescription: String { description }
}
