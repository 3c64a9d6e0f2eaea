import Foundation
import HeraldConfiguration
import HeraldCore
import Testing

/// `server.http.tls` and `compat.apns_ms.tls`: the keys, and the files checked at load time with
/// errors naming the key at fault.
@Suite struct ListenerTLSTests {
    /// A directory holding a certificate file, a key file and a password file (their contents do
    /// not matter here: parsing them is the server's business).
    struct Files {
        let directory = Fixture.makeDirectory()
        var certificate: String { directory + "/cert.pem" }
        var key: String { directory + "/key.pem" }
        var password: String { directory + "/password" }

        init() {
            _ = FileManager.default.createFile(atPath: certificate, contents: Data("-----BEGIN CERTIFICATE-----\n".utf8))
            _ = FileManager.default.createFile(atPath: key, contents: Data("-----BEGIN PRIVATE KEY-----\n".utf8))
            _ = FileManager.default.createFile(atPath: password, contents: Data("hunter2\n".utf8))
        }
    }

    @Test func theHTTPPortTakesTLSAndDefaultsToPlainHTTP() throws {
        #expect(try Fixture.load("").configuration.server.http.tls == nil)
        let files = Files()
        let yaml = """
            server:
              http:
                port: 8443
                tls: {cert_file: \(files.certificate), key_file: \(files.key), key_password_file: \(files.password)}

            """
        let http = try Fixture.load(yaml).configuration.server.http
        #expect(http.port == 8443)
        #expect(
            http.tls
                == HeraldConfiguration.ListenerTLS(
                    certificateFile: files.certificate, keyFile: files.key, keyPasswordFile: files.password, keyPath: "server.http.tls"))
        let material = try #require(try http.tls?.read())
        #expect(material.keyPassword == "hunter2", "one trailing newline is removed")
        #expect(!"\(material)".contains("hunter2") && !"\(material)".contains("PRIVATE KEY"), "printing the material prints no secret")
    }

    @Test func aMissingKeyFileIsAnErrorNamingItsKey() {
        let files = Files()
        let error = Fixture.failure("server:\n  http:\n    tls: {cert_file: \(files.certificate), key_file: \(files.directory)/nope.pem}\n")
        #expect(error?.key == "server.http.tls.key_file")
        #expect(error?.problem.contains("no such file") == true, "\(String(describing: error))")
    }

    @Test func aMissingPasswordFileIsAnErrorNamingItsKey() {
        let files = Files()
        let error = Fixture.failure(
            "server:\n  http:\n    tls: {cert_file: \(files.certificate), key_file: \(files.key), key_password_file: /nonexistent/pw}\n")
        #expect(error?.key == "server.http.tls.key_password_file")
    }

    @Test func bothFilesAreRequired() {
        let files = Files()
        #expect(Fixture.failure("server:\n  http:\n    tls: {key_file: \(files.key)}\n")?.key == "server.http.tls.cert_file")
        #expect(Fixture.failure("server:\n  http:\n    tls: {cert_file: \(files.certificate)}\n")?.key == "server.http.tls.key_file")
    }

    @Test func unknownKeysAreRejectedAndOnlyHTTPListenersTakeTLS() {
        let files = Files()
        let typo = Fixture.failure("server:\n  http:\n    tls: {cert_file: \(files.certificate), key_file: \(files.key), key_pasword_file: x}\n")
        #expect(typo?.key == "server.http.tls.key_pasword_file")
        #expect(typo?.problem.contains("key_password_file") == true)
        let udp = Fixture.failure("server:\n  udp:\n    port: 8081\n    tls: {cert_file: \(files.certificate), key_file: \(files.key)}\n")
        #expect(udp?.key == "server.udp.tls")
    }

    @Test func theApnsMSSectionTakesTheSameKey() {
        let files = Files()
        let error = Fixture.failure("compat:\n  apns_ms:\n    tls: {cert_file: \(files.directory)/missing.pem, key_file: \(files.key)}\n")
        #expect(error?.key == "compat.apns_ms.tls.cert_file")
        #expect(Fixture.failure("compat:\n  apns_ms:\n    tls: {cert_file: \(files.certificate), key_file: \(files.key)}\n") == nil)
    }

    @Test func environmentVariablesSetTheTLSKeys() throws {
        let files = Files()
        let loaded = try Fixture.load(
            nil,
            environment: ["HERALD_SERVER_HTTP_TLS_CERT_FILE": files.certificate, "HERALD_SERVER_HTTP_TLS_KEY_FILE": files.key])
        #expect(loaded.configuration.server.http.tls?.certificateFile == files.certificate)
        #expect(loaded.configuration.server.http.tls?.keyFile == files.key)
    }
}
