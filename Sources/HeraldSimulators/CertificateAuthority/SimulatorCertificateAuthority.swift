import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway certificate authority for the simulators and the tests: one server certificate for the loopback
/// host, more on demand (a test of Herald's own TLS port renewing its certificate), and client certificates for
/// APNs certificate authentication.
///
/// Everything is P-256 and generated in memory; when a directory is given the PEM files are also written there so
/// that a Herald configuration (`ca_file`, `cert_file`, `cert_key_file`) can point at them.
public struct SimulatorCertificateAuthority: Sendable {
    /// The subject attribute APNs reads a provider certificate's topic from (UID, OID 0.9.2342.19200300.100.1.1).
    public static let userIDAttribute: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]

    /// The CA certificate in PEM: what clients trust.
    public let caCertificatePEM: String
    /// The server certificate (SAN `localhost`, `127.0.0.1`, `::1`) in PEM.
    public let serverCertificatePEM: String
    /// The server certificate's private key in PEM.
    public let serverPrivateKeyPEM: String
    /// The directory the PEM files are written to, if any.
    public let directory: String?

    let caKey: P256.Signing.PrivateKey
    let caCertificate: Certificate

    /// Where the CA certificate was written (`<directory>/simulator-ca.pem`), if there is a directory.
    public var caCertificateFile: String? { self.directory.map { Self.path($0, "simulator-ca.pem") } }
    /// Where the server certificate was written, if there is a directory.
    public var serverCertificateFile: String? { self.directory.map { Self.path($0, "simulator-server.pem") } }
    /// Where the server key was written, if there is a directory.
    public var serverPrivateKeyFile: String? { self.directory.map { Self.path($0, "simulator-server-key.pem") } }

    /// Generates a new CA and its server certificate, writing the PEM files into `directory` when given.
    ///
    /// - Parameters:
    ///   - commonName: The CA's subject common name; by default `Herald Simulator CA` and a random
    ///     suffix, so that two authorities trusted side by side (a provider's `ca_file` beside
    ///     `outbound.ca_file`) never share a name: TLS picks an issuer by name, and would check a
    ///     certificate against the other one's key.
    ///   - directory: Created if missing. Keys are written readable by the owner only.
    public init(commonName: String? = nil, directory: String? = nil) throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName(commonName ?? "Herald Simulator CA \(UUID().uuidString.prefix(8))") }
        let caCertificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(caKey.publicKey),
            // Backdated an hour so that small clock differences between processes never make it "not yet valid".
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400 * 365),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(caKey.publicKey))
            },
            issuerPrivateKey: .init(caKey)
        )
        let server = try Self.issueServerCertificate(commonName: "localhost", caKey: caKey, caName: caName)
        self.caKey = caKey
        self.caCertificate = caCertificate
        self.caCertificatePEM = try caCertificate.serializeAsPEM().pemString
        self.serverCertificatePEM = server.certificatePEM
        self.serverPrivateKeyPEM = server.privateKeyPEM
        self.directory = directory

        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Self.write(self.caCertificatePEM, to: Self.path(directory, "simulator-ca.pem"), secret: false)
            try Self.write(self.serverCertificatePEM, to: Self.path(directory, "simulator-server.pem"), secret: false)
            try Self.write(self.serverPrivateKeyPEM, to: Self.path(directory, "simulator-server-key.pem"), secret: true)
        }
    }

    /// Issues a client certificate for APNs certificate authentication whose subject UID is `topic`.
    ///
    /// The subject mirrors Apple's provider certificates (`UID=<topic>, CN=Apple Push Services: <topic>, OU=<team>`).
    /// When the authority has a directory, the certificate and key are written there as
    /// `apns-client-<topic>.pem` and `apns-client-<topic>-key.pem`.
    public func issueClientCertificate(topic: String, teamID: String? = nil) throws -> ClientCertificate {
        let now = Date()
        let key = P256.Signing.PrivateKey()
        var attributes = [
            RelativeDistinguishedName.Attribute(type: Self.userIDAttribute, utf8String: topic),
            RelativeDistinguishedName.Attribute(
                type: .RDNAttributeType.commonName,
                utf8String: "Apple Push Services: \(topic)"
            ),
        ]
        if let teamID {
            attributes.append(.init(type: .RDNAttributeType.organizationalUnitName, utf8String: teamID))
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            // Apple's provider certificates are valid for one year.
            notValidAfter: now.addingTimeInterval(86400 * 365),
            issuer: self.caCertificate.subject,
            subject: DistinguishedName(attributes.map { RelativeDistinguishedName($0) }),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
            },
            issuerPrivateKey: .init(self.caKey)
        )
        let certificatePEM = try certificate.serializeAsPEM().pemString
        let privateKeyPEM = key.pemRepresentation
        var certificateFile: String?
        var privateKeyFile: String?
        if let directory = self.directory {
            let safe = String(topic.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
            certificateFile = Self.path(directory, "apns-client-\(safe).pem")
            privateKeyFile = Self.path(directory, "apns-client-\(safe)-key.pem")
            try Self.write(certificatePEM, to: certificateFile!, secret: false)
            try Self.write(privateKeyPEM, to: privateKeyFile!, secret: true)
        }
        return ClientCertificate(
            topic: topic,
            certificatePEM: certificatePEM,
            privateKeyPEM: privateKeyPEM,
            certificateFile: certificateFile,
            privateKeyFile: privateKeyFile
        )
    }

    /// A server TLS configuration presenting the server certificate, negotiating `applicationProtocols` by ALPN.
    public func serverTLSConfiguration(
        clientCertificates: ClientCertificatePolicy = .none,
        applicationProtocols: [String] = ["h2"]
    ) throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(self.serverCertificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(self.serverPrivateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)],
            privateKey: .privateKey(key)
        )
        // APNs requires TLS 1.2 or later.
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = applicationProtocols
        switch clientCertificates {
        case .none:
            configuration.certificateVerification = .none
        case .optional:
            configuration.certificateVerification = .optionalVerification
            configuration.trustRoots = .certificates([try self.caNIOSSLCertificate()])
        case .required:
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([try self.caNIOSSLCertificate()])
        }
        return configuration
    }

    /// A client TLS configuration that trusts only this CA, optionally presenting `clientCertificate`.
    public func clientTLSConfiguration(
        clientCertificate: ClientCertificate? = nil,
        applicationProtocols: [String] = ["h2"]
    ) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.trustRoots = .certificates([try self.caNIOSSLCertificate()])
        configuration.applicationProtocols = applicationProtocols
        if let clientCertificate {
            configuration.certificateChain = [
                .certificate(try NIOSSLCertificate(bytes: Array(clientCertificate.certificatePEM.utf8), format: .pem))
            ]
            configuration.privateKey = .privateKey(
                try NIOSSLPrivateKey(bytes: Array(clientCertificate.privateKeyPEM.utf8), format: .pem)
            )
        }
        return configuration
    }

    /// The CA certificate as a NIOSSL certificate, e.g. for `additionalTrustRoots`.
    public func caNIOSSLCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(self.caCertificatePEM.utf8), format: .pem)
    }

    /// The topic (subject UID) of a DER-encoded certificate, if it has one.
    public static func topic(ofCertificateDER der: [UInt8]) -> String? {
        guard let certificate = try? Certificate(derEncoded: der) else { return nil }
        for relativeName in certificate.subject {
            for attribute in relativeName where attribute.type == Self.userIDAttribute {
                return String(attribute.value)
            }
        }
        return nil
    }

    private static func path(_ directory: String, _ name: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(name).path
    }

    private static func write(_ text: String, to path: String, secret: Bool) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        if secret {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
    }
}
