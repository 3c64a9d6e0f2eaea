import NIOSSL
import PostgresNIO

extension PostgresStoreConfiguration {
    /// The connections' TLS as libpq reads the same URL: `require` encrypts without checking the
    /// certificate (unless `sslrootcert` is given), `verify-ca` checks that a trusted authority
    /// issued it, `verify-full` also that it names the URL's host (or, for an address, that
    /// address). A client certificate, when given, is shown to servers that ask for one.
    ///
    /// - Throws: ``PostgresURLError`` when a certificate or key file cannot be read.
    func clientTLS() throws -> PostgresClient.Configuration.TLS {
        guard let configuration = try tlsConfiguration() else { return .disable }
        return tls == .prefer ? .prefer(configuration) : .require(configuration)
    }

    /// The TLS settings of ``clientTLS()``; `nil` for ``TLSMode/disable``.
    func tlsConfiguration() throws -> TLSConfiguration? {
        guard tls != .disable else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tls {
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
        case .require where rootCertificateFile != nil:
            configuration.certificateVerification = .noHostnameVerification
        case .require, .prefer, .disable:
            configuration.certificateVerification = .none
        }
        if let rootCertificateFile {
            let roots = try Self.read("sslrootcert", rootCertificateFile) { try NIOSSLCertificate.fromPEMFile($0) }
            guard !roots.isEmpty else { throw PostgresURLError("sslrootcert \(rootCertificateFile) holds no certificate") }
            configuration.trustRoots = .certificates(roots)
        }
        if let clientCertificateFile, let clientKeyFile {
            let chain = try Self.read("sslcert", clientCertificateFile) { try NIOSSLCertificate.fromPEMFile($0) }
            guard !chain.isEmpty else { throw PostgresURLError("sslcert \(clientCertificateFile) holds no certificate") }
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.read("sslkey", clientKeyFile) { try NIOSSLPrivateKey(file: $0, format: .pem) })
        }
        return configuration
    }

    /// `load(path)`, its failure named after the URL's parameter.
    private static func read<T>(_ parameter: String, _ path: String, _ load: (String) throws -> T) throws -> T {
        do {
            return try load(path)
        } catch {
            throw PostgresURLError("cannot read \(parameter) \(path): \(error)")
        }
    }
}
