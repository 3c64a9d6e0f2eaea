import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldServerTLS
import HeraldSimulators
import HeraldTestSupport
import Logging
import Testing

/// Parsing a listener's certificate and key: the errors that stop start-up name the key at fault
/// and never a secret; a reload takes good files and keeps the old identity on bad ones.
@Suite struct TLSCredentialsTests {
    let authority: SimulatorCertificateAuthority
    let issued: SimulatorCertificateAuthority.ServerCertificate
    let directory = TestHerald.makeTemporaryDirectory()
    var certificateFile: String { directory + "/server.pem" }
    var keyFile: String { directory + "/server-key.pem" }
    var passwordFile: String { directory + "/key-password" }

    init() throws {
        authority = try SimulatorCertificateAuthority()
        issued = try authority.issueServerCertificate(commonName: "first")
    }

    func settings(password: Bool = false) -> HeraldConfiguration.ListenerTLS {
        .init(certificateFile: certificateFile, keyFile: keyFile, keyPasswordFile: password ? passwordFile : nil)
    }

    /// The configuration error `body` throws.
    func failure(_ body: () throws(ConfigurationError) -> Void) -> ConfigurationError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func aWrongKeyPasswordIsAnErrorNamingThePasswordFile() throws {
        try issued.write(certificateFile: certificateFile, keyFile: keyFile, password: "right password")
        try "wrong password\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let error = try #require(failure { () throws(ConfigurationError) in _ = try TLSCredentials(settings: settings(password: true)) })
        #expect(error.key == "server.http.tls.key_password_file")
        #expect(error.problem.contains("wrong password?"), "\(error)")
        #expect(!error.description.contains("right password") && !error.description.contains("wrong password\n"))

        try "right password\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let credentials = try TLSCredentials(settings: settings(password: true))
        #expect(try credentials.identity.leaf.toDERBytes() == issued.certificateDER)
    }

    @Test func anEncryptedKeyWithoutAPasswordFileSaysSo() throws {
        try issued.write(certificateFile: certificateFile, keyFile: keyFile, password: "secret")
        let error = try #require(failure { () throws(ConfigurationError) in _ = try TLSCredentials(settings: settings()) })
        #expect(error.key == "server.http.tls.key_password_file")
        #expect(error.problem.contains("encrypted"))
    }

    @Test func aKeyOfAnotherCertificateIsRefused() throws {
        let other = try authority.issueServerCertificate(commonName: "other")
        try issued.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try other.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let error = try #require(failure { () throws(ConfigurationError) in _ = try TLSCredentials(settings: settings()) })
        #expect(error.key == "server.http.tls.key_file")
        #expect(error.problem.contains("does not belong"), "\(error)")
    }

    @Test func filesThatAreNotPEMAreRefused() throws {
        try issued.write(certificateFile: certificateFile, keyFile: keyFile)
        try "not a certificate".write(toFile: certificateFile, atomically: true, encoding: .utf8)
        #expect(failure { () throws(ConfigurationError) in _ = try TLSCredentials(settings: settings()) }?.key == "server.http.tls.cert_file")
        try issued.write(certificateFile: certificateFile, keyFile: keyFile)
        try "not a key".write(toFile: keyFile, atomically: true, encoding: .utf8)
        #expect(failure { () throws(ConfigurationError) in _ = try TLSCredentials(settings: settings()) }?.key == "server.http.tls.key_file")
    }

    @Test func aReloadTakesGoodFilesAndKeepsTheOldIdentityOnBadOnes() throws {
        try issued.write(certificateFile: certificateFile, keyFile: keyFile)
        let credentials = try TLSCredentials(settings: settings())
        let logger = Logger(label: "test")

        let renewed = try authority.issueServerCertificate(commonName: "renewed")
        try renewed.write(certificateFile: certificateFile, keyFile: keyFile)
        #expect(credentials.reload(logger: logger))
        #expect(try credentials.identity.leaf.toDERBytes() == renewed.certificateDER)

        try FileManager.default.removeItem(atPath: keyFile)
        #expect(!credentials.reload(logger: logger))
        #expect(try credentials.identity.leaf.toDERBytes() == renewed.certificateDER, "a failed reload keeps what was served")
    }
}
