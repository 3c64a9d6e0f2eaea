import NIOSSL

/// The TLS client configuration every outbound connection uses: the system trust
/// store plus the configured extra roots (`outbound.ca_file` and the provider's `ca_file`).
public enum OutboundTLS {
    /// A client configuration trusting the system roots and the PEM files `extraRootFiles`.
    public static func clientConfiguration(extraRootFiles: [String]) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if !extraRootFiles.isEmpty {
            var roots: [NIOSSLCertificate] = []
            for file in extraRootFiles {
                roots += try NIOSSLCertificate.fromPEMFile(file)
            }
            configuration.additionalTrustRoots = [.certificates(roots)]
        }
        return configuration
    }
}
