import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway CA for tests of Herald's own TLS port: it issues as many server certificates as a
/// test needs (a reload needs a second one), each for `localhost` and `127.0.0.1`, written as PEM files.
public struct TestCertificateAuthority: Sendable {
    /// A server certificate and its key, as PEM text and as the files they were written to.
    public struct Issued: Sendable {
        /// The certificate's subject common name, which tells certificates apart in tests.
        public var commonName: String
        /// The certificate in DER, to compare with what a server presents.
        public var certificateDER: [UInt8]
        /// The certificate in PEM.
        public var certificatePEM: String
        /// The private key in PEM (PKCS #8, unencrypted).
        public var privateKeyPEM: String
        /// The private key in DER (PKCS #8).
        public var privateKeyDER: [UInt8]
    }

    /// The CA certificate in PEM.
    public let certificatePEM: String
    private let key: P256.Signing.PrivateKey
    private let name: DistinguishedName

    /// Generates a new CA.
    public init(commonName: String = "Herald Test CA") throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            // Backdated so that clock differences never make it "not yet valid".
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400 * 30),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(key.publicKey))
            },
            issuerPrivateKey: .init(key))
        self.key = key
        self.name = name
        self.certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// The CA certificate, for a client's trust roots.
    public func certificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
    }

    /// Issues a server certificate for `localhost`, `127.0.0.1` and `::1` whose subject is `commonName`.
    public func issueServerCertificate(commonName: String) throws -> Issued {
        let serverKey = P256.Signing.PrivateKey()
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400 * 30),
            issuer: name, subject: try DistinguishedName { CommonName(commonName) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Issued(
            commonName: commonName, certificateDER: serializer.serializedBytes, certificatePEM: try certificate.serializeAsPEM().pemString,
            privateKeyPEM: serverKey.pemRepresentation, privateKeyDER: Array(serverKey.derRepresentation))
    }

    /// A client TLS configuration trusting only this CA and offering `applicationProtocols` by ALPN.
    public func clientConfiguration(applicationProtocols: [String] = ["h2", "http/1.1"]) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([try certificate()])
        configuration.applicationProtocols = applicationProtocols
        return configuration
    }
}
