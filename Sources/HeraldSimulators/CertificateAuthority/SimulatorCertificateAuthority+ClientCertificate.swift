import NIOSSL

extension SimulatorCertificateAuthority {
    /// A client certificate issued by the authority, with its private key.
    public struct ClientCertificate: Sendable {
        /// The APNs topic (bundle id) carried in the subject's UID attribute.
        public let topic: String
        /// The certificate in PEM.
        public let certificatePEM: String
        /// The certificate's private key in PEM (PKCS#8).
        public let privateKeyPEM: String
        /// Where the certificate was written, when the authority has a directory.
        public let certificateFile: String?
        /// Where the private key was written, when the authority has a directory.
        public let privateKeyFile: String?

        /// A client TLS configuration presenting this certificate and trusting only `authority`.
        public func tlsConfiguration(
            trusting authority: SimulatorCertificateAuthority,
            applicationProtocols: [String] = ["h2"]
        ) throws -> TLSConfiguration {
            try authority.clientTLSConfiguration(clientCertificate: self, applicationProtocols: applicationProtocols)
        }
    }
}
