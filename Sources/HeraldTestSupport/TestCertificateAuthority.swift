import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway certificate authority with one server certificate for `localhost` and `127.0.0.1`,
/// written as PEM files so they can be handed to Herald's configuration (`ca_file`).
public struct TestCertificateAuthority: Sendable {
    /// PEM file of the CA certificate (what clients trust).
    public let caFile: String
    /// The CA certificate in PEM.
    public let caPEM: String
    /// The server certificate in PEM.
    public let serverCertificatePEM: String
    /// The server key in PEM.
    public let serverKeyPEM: String

    /// Generates the CA and server certificate into `directory`.
    public init(directory: String) throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Herald Test CA") }
        let ca = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400 * 365),
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
            notValidAfter: now.addingTimeInterval(86400 * 30),
            issuer: caName,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey)
        )
        self.caPEM = try ca.serializeAsPEM().pemString
        self.serverCertificatePEM = try server.serializeAsPEM().pemString
        self.serverKeyPEM = serverKey.pemRepresentation
        self.caFile = (directory as NSString).appendingPathComponent("test-ca.pem")
        try caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
    }

    /// A TLS server configuration presenting the server certificate.
    public func serverTLSConfiguration() throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(serverCertificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(serverKeyPEM.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
    }
}
