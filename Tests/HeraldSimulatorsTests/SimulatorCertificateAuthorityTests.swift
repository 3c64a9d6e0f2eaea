import Foundation
import HeraldSimulators
import SwiftASN1
import Testing
import X509

@Suite struct SimulatorCertificateAuthorityTests {
    @Test func writesPEMFilesAndCoversTheLoopbackNames() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hsim-ca-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let authority = try SimulatorCertificateAuthority(directory: directory)

        let caFile = try #require(authority.caCertificateFile)
        #expect(try String(contentsOfFile: caFile, encoding: .utf8) == authority.caCertificatePEM)
        let keyFile = try #require(authority.serverPrivateKeyFile)
        let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        let server = try Certificate(pemEncoded: authority.serverCertificatePEM)
        let ca = try Certificate(pemEncoded: authority.caCertificatePEM)
        #expect(server.issuer == ca.subject)
        let names = try #require(try server.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(try ca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
    }

    @Test func clientCertificatesCarryTheTopicInTheUID() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hsim-ca-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let client = try authority.issueClientCertificate(topic: "com.example.app", teamID: "TEAM123456")

        let certificate = try Certificate(pemEncoded: client.certificatePEM)
        let uid = certificate.subject.flatMap { $0 }.first { $0.type == SimulatorCertificateAuthority.userIDAttribute }
        #expect(uid.flatMap { String($0.value) } == "com.example.app")
        #expect(
            SimulatorCertificateAuthority.topic(ofCertificateDER: try certificate.serializeAsPEM().derBytes)
                == "com.example.app")
        #expect(try certificate.extensions.extendedKeyUsage?.contains(.clientAuth) == true)
        let file = try #require(client.certificateFile)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == client.certificatePEM)
    }

    @Test func serverConfigurationOffersHTTP2AndAsksForClientCertificatesWhenTold() throws {
        let authority = try SimulatorCertificateAuthority()
        let plain = try authority.serverTLSConfiguration()
        #expect(plain.applicationProtocols == ["h2"])
        #expect(plain.certificateVerification == .none)
        let optional = try authority.serverTLSConfiguration(clientCertificates: .optional)
        #expect(optional.certificateVerification == .optionalVerification)
        let required = try authority.serverTLSConfiguration(clientCertificates: .required)
        #expect(required.certificateVerification == .noHostnameVerification)
    }
}
