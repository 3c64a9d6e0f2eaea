import Crypto
import Foundation
import NIOSSL
import X509

/// A throwaway P-256 certificate authority and a server certificate for `localhost`, kept in memory.
struct TestCertificateAuthority: Sendable {
    let caCertificate: NIOSSLCertificate
    let serverCertificate: NIOSSLCertificate
    let serverKey: NIOSSLPrivateKey

    /// Generates a fresh CA and server certificate.
    init() throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Herald HTTP2 Test CA") }
        let ca = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey)
        )
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400),
            issuer: caName,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: .init(caKey)
        )
        self.caCertificate = try NIOSSLCertificate(bytes: Array(ca.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverCertificate = try NIOSSLCertificate(bytes: Array(server.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
    }

    /// A server configuration presenting the `localhost` certificate and offering `protocols` by ALPN.
    func serverTLSConfiguration(protocols: [String] = ["h2"]) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(self.serverCertificate)],
            privateKey: .privateKey(self.serverKey)
        )
        configuration.applicationProtocols = protocols
        return configuration
    }

    /// A client configuration trusting only this CA.
    func clientTLSConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([self.caCertificate])
        return configuration
    }
}
