import Foundation
import HeraldSimulators
import HeraldTestSupport
import Testing

/// `herald serve` with `server.http.tls`, as an operator runs it: `SIGHUP` after renewing the
/// certificate serves the new one to new connections while open ones carry on; bad files are
/// refused at start-up with the key named, and on reload the old certificate stays.
@Suite(.serialized) struct TLSReloadTests {
    /// A directory with a CA, the first server certificate's files and a configuration using them.
    struct Setup {
        let directory = TestHerald.makeTemporaryDirectory()
        let authority: SimulatorCertificateAuthority
        let first: SimulatorCertificateAuthority.ServerCertificate
        var certificateFile: String { directory + "/server.pem" }
        var keyFile: String { directory + "/server-key.pem" }
        var passwordFile: String { directory + "/key-password" }
        var config: String { directory + "/herald.yml" }

        init(password: String? = nil, configuredPassword: String? = nil) throws {
            authority = try SimulatorCertificateAuthority()
            first = try authority.issueServerCertificate(commonName: "herald-first")
            try first.write(certificateFile: certificateFile, keyFile: keyFile, password: password)
            var tls = "{cert_file: \(certificateFile), key_file: \(keyFile)"
            if let configuredPassword {
                try "\(configuredPassword)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
                tls += ", key_password_file: \(passwordFile)"
            }
            try "log: {level: trace}\nserver:\n  http:\n    tls: \(tls)}\n".write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// A new connection offering HTTP/1.1 only (so requests can be sent on it here).
        func connect(_ port: Int) async throws -> TLSProbe {
            try await TLSProbe.connect(port: port, configuration: try authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"]))
        }

        /// Starts `herald serve` and waits until it answers over TLS.
        func start() async throws -> HeraldProcess {
            let port = try HeraldProcess.freePort()
            return try await HeraldProcess.start(["--config", config], port: port, directory: directory) { herald in
                let probe = try await connect(herald.port)
                let status = try? await probe.get("/status")
                await probe.close()
                return status == 204
            }
        }
    }

    @Test func sighupServesTheRenewedCertificateToNewConnectionsWhileOpenOnesCarryOn() async throws {
        let setup = try Setup()
        let herald = try await setup.start()
        let open = try await setup.connect(herald.port)
        #expect(open.peerCertificateDER == setup.first.certificateDER)
        #expect(try await open.get("/status") == 204)

        let renewed = try setup.authority.issueServerCertificate(commonName: "herald-renewed")
        try renewed.write(certificateFile: setup.certificateFile, keyFile: setup.keyFile)
        herald.signal(SIGHUP)
        try await eventually {
            let probe = try await setup.connect(herald.port)
            await probe.close()
            return probe.peerCertificateDER == renewed.certificateDER
        }
        #expect(open.isActive, "the reload dropped an open connection")
        #expect(try await open.get("/status") == 204, "a connection opened before the reload keeps working")
        #expect(herald.log.contains("reloaded the TLS certificate"))

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await open.close()
    }

    @Test func aBadFileOnReloadIsLoggedAndTheOldCertificateStays() async throws {
        let setup = try Setup()
        let herald = try await setup.start()
        try "-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n".write(toFile: setup.keyFile, atomically: true, encoding: .utf8)
        herald.signal(SIGHUP)
        try await eventually { herald.log.contains("cannot reload the TLS certificate") }
        #expect(herald.log.contains("server.http.tls.key_file"))
        let probe = try await setup.connect(herald.port)
        #expect(probe.peerCertificateDER == setup.first.certificateDER)
        #expect(try await probe.get("/status") == 204)
        await probe.close()

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
    }

    @Test func aMissingKeyFileStopsStartUpNamingTheKey() async throws {
        let setup = try Setup()
        try FileManager.default.removeItem(atPath: setup.keyFile)
        let result = try await HeraldProcess.run(["serve", "--config", setup.config, "--port", "\(try HeraldProcess.freePort())"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("server.http.tls.key_file: cannot read \(setup.keyFile): no such file"), "\(result.stderr)")
    }

    @Test func aWrongKeyPasswordStopsStartUpWithoutPrintingIt() async throws {
        let setup = try Setup(password: "the right one", configuredPassword: "not-the-password")
        let result = try await HeraldProcess.run(["serve", "--config", setup.config, "--port", "\(try HeraldProcess.freePort())"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("server.http.tls.key_password_file"), "\(result.stderr)")
        #expect(result.stderr.contains("wrong password?"), "\(result.stderr)")
        #expect(!result.stderr.contains("not-the-password") && !result.stderr.contains("the right one"))
    }

    @Test func noSecretReachesTheLogAtTraceLevel() async throws {
        let setup = try Setup(password: "s3cret-passw0rd", configuredPassword: "s3cret-passw0rd")
        let herald = try await setup.start()
        herald.signal(SIGHUP)
        try await eventually { herald.log.contains("reloaded the TLS certificate") }
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        let log = herald.log
        let keyBody = try String(contentsOfFile: setup.keyFile, encoding: .utf8).split(separator: "\n").dropFirst(3).first.map(String.init)
        #expect(!log.contains("s3cret-passw0rd"))
        #expect(keyBody.map { !log.contains($0) } ?? true)
        #expect(!log.contains("PRIVATE KEY"))
    }
}
