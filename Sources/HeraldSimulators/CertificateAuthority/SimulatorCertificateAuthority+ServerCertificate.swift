import Crypto
import Foundation
import SwiftASN1
import X509

extension SimulatorCertificateAuthority {
    /// A server certificate for the loopback host and its key.
    public struct ServerCertificate: Sendable {
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

    /// Issues another server certificate for `localhost`, `127.0.0.1` and `::1` whose subject is
    /// `commonName`, with a key of its own (a server renewing its certificate).
    public func issueServerCertificate(commonName: String) throws -> ServerCertificate {
        try Self.issueServerCertificate(commonName: commonName, caKey: self.caKey, caName: self.caCertificate.subject)
    }

    /// Issues a server certificate valid for exactly `names` (DNS names and IP addresses), with a
    /// key of its own: a server whose certificate does not name every address it is reached at.
    public func issueServerCertificate(commonName: String, names: [GeneralName]) throws -> ServerCertificate {
        try Self.issueServerCertificate(commonName: commonName, caKey: self.caKey, caName: self.caCertificate.subject, names: names)
    }

    /// `localhost`, `127.0.0.1` and `::1`: the names of a simulator's certificate.
    public static let loopbackNames: [GeneralName] = [
        .dnsName("localhost"),
        .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
        .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
    ]

    static func issueServerCertificate(
        commonName: String, caKey: P256.Signing.PrivateKey, caName: DistinguishedName, names: [GeneralName] = loopbackNames
    ) throws -> ServerCertificate {
        let now = Date()
        let key = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400 * 365),
            issuer: caName,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(caKey)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return ServerCertificate(
            commonName: commonName, certificateDER: serializer.serializedBytes, certificatePEM: try certificate.serializeAsPEM().pemString,
            privateKeyPEM: key.pemRepresentation, privateKeyDER: Array(key.derRepresentation))
    }
}
