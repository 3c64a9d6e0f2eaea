import HeraldCore

extension HeraldConfiguration {
    /// TLS on one of Herald's own listeners (`server.http.tls`, `compat.apns_ms.tls`): where the
    /// PEM certificate chain and private key are.
    ///
    /// Only the file names are kept: the files are read when the listener starts and again on
    /// `SIGHUP`, so a renewed certificate is served without a restart. Defaults: none; the
    /// listener speaks plain HTTP when the section is absent.
    public struct ListenerTLS: Sendable, Equatable {
        /// The PEM certificate chain, leaf first (`cert_file`); required.
        public var certificateFile: String
        /// The PEM private key of the leaf certificate (`key_file`); required. It may be
        /// encrypted, with its password in ``keyPasswordFile``.
        public var keyFile: String
        /// The file holding the private key's password (`key_password_file`); default `nil`
        /// (the key is not encrypted). One trailing newline is removed.
        public var keyPasswordFile: String?
        /// The section's key path (`server.http.tls`), which errors and log lines name.
        public var keyPath: String

        /// Creates the settings; `keyPath` is what errors name.
        public init(certificateFile: String, keyFile: String, keyPasswordFile: String? = nil, keyPath: String = "server.http.tls") {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.keyPasswordFile = keyPasswordFile
            self.keyPath = keyPath
        }

        /// Reads a `tls` section and checks that its files can be read, so that a missing file
        /// is a configuration error at start-up rather than a failed handshake later.
        public init(section: ConfigSection) throws(ConfigurationError) {
            try section.rejectUnknownKeys(schema: ConfigurationSchema.tls)
            guard let certificateFile = try section.nonEmptyString("cert_file") else {
                throw ConfigurationError(key: section.keyPath("cert_file"), "is required")
            }
            guard let keyFile = try section.nonEmptyString("key_file") else {
                throw ConfigurationError(key: section.keyPath("key_file"), "is required")
            }
            self.init(
                certificateFile: certificateFile, keyFile: keyFile, keyPasswordFile: try section.nonEmptyString("key_password_file"),
                keyPath: section.path)
            _ = try read()
        }

        /// The key path of one of the section's keys (`server.http.tls.key_file`).
        public func keyPath(_ key: String) -> String { "\(keyPath).\(key)" }

        /// Reads the files as they are now; errors name the key of the file that could not be used.
        public func read() throws(ConfigurationError) -> Material {
            let certificate = try SecretFile.readText(certificateFile, key: keyPath("cert_file"))
            let key = try SecretFile.readText(keyFile, key: keyPath("key_file"))
            let password = try keyPasswordFile.map { file throws(ConfigurationError) in
                try SecretFile.read(file, key: keyPath("key_password_file"))
            }
            return Material(certificateChainPEM: certificate, privateKeyPEM: key, keyPassword: password)
        }
    }
}
