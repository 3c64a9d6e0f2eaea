import Foundation
import HeraldSimulators
@testable import HeraldStorePostgres
import HeraldStore
import HeraldTestFixtures
import Logging
import NIOSSL
import PostgresNIO
import Testing

/// How `server.database` connects, against the test server: TLS as libpq reads `sslmode`,
/// `sslrootcert`, `sslcert` and `sslkey` (the server's certificate is for `localhost` only, from a
/// test authority), a Unix-domain socket, the application name.
@Suite("PostgreSQL: how the URL connects")
struct PostgresConnectionTests {
    @Test("sslmode=require encrypts without checking the certificate, as libpq does; no sslmode stays plain")
    func requireEncrypts() async throws {
        let server = try await PostgresTestServer.shared()
        #expect(try await session(server, "sslmode=require").ssl)
        #expect(try await session(server, "sslmode=prefer").ssl)
        #expect(try await !session(server, nil).ssl)
        #expect(try await !session(server, "sslmode=disable").ssl)
    }

    @Test("verify-full checks the authority and the host name: localhost passes, 127.0.0.1 (not in the certificate) is refused")
    func verifyFullChecksTheName() async throws {
        let server = try await PostgresTestServer.shared()
        let roots = "sslrootcert=\(server.certificateAuthorityFile)"
        #expect(try await session(server, "sslmode=verify-full&\(roots)", host: "localhost").ssl)
        try await expectRefused(server, "sslmode=verify-full&\(roots)")
    }

    @Test("verify-ca checks only the authority: the test authority passes at 127.0.0.1, the system's authorities refuse it")
    func verifyCAChecksTheAuthority() async throws {
        let server = try await PostgresTestServer.shared()
        #expect(try await session(server, "sslmode=verify-ca&sslrootcert=\(server.certificateAuthorityFile)").ssl)
        try await expectRefused(server, "sslmode=verify-ca")
        try await expectRefused(server, "sslmode=verify-ca&sslrootcert=system")
    }

    @Test("sslmode=require with an sslrootcert checks the authority, as libpq does: another authority is refused")
    func requireWithRootsChecksTheAuthority() async throws {
        let server = try await PostgresTestServer.shared()
        let directory = TemporaryDirectory.make()
        let other = directory + "/other-ca.pem"
        try SimulatorCertificateAuthority(commonName: "Another CA").caCertificatePEM.write(toFile: other, atomically: true, encoding: .utf8)
        try await expectRefused(server, "sslmode=require&sslrootcert=\(other)")
        #expect(try await session(server, "sslmode=require&sslrootcert=\(server.certificateAuthorityFile)").ssl)
    }

    @Test("sslcert and sslkey: the server sees the client certificate")
    func clientCertificate() async throws {
        let server = try await PostgresTestServer.shared()
        let seen = try await session(server, "sslmode=require&sslcert=\(server.clientCertificateFile)&sslkey=\(server.clientKeyFile)")
        #expect(seen.ssl)
        #expect(seen.clientDN.contains("herald"))
        #expect(try await session(server, "sslmode=require").clientDN.isEmpty)
    }

    @Test("a certificate file that cannot be read, or sslcert without sslkey, is refused before connecting, without the password")
    func unreadableFiles() throws {
        let base = "postgres://herald:topsecret@127.0.0.1:5432/db"
        for query in ["sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", "sslmode=require&sslcert=/nonexistent/c.pem&sslkey=/nonexistent/k.pem"] {
            let configuration = try PostgresStoreConfiguration(url: "\(base)?\(query)")
            #expect {
                _ = try PostgresStore(configuration: configuration)
            } throws: { error in
                error is PostgresURLError && "\(error)".contains("/nonexistent/") && !"\(error)".contains("topsecret")
            }
        }
        #expect(throws: PostgresURLError.self) { try PostgresStoreConfiguration(url: "\(base)?sslmode=require&sslcert=/tmp/c.pem") }
    }

    @Test("a socket directory as host (percent-encoded in the URL, or host=) connects over the Unix-domain socket")
    func unixSocket() async throws {
        let server = try await PostgresTestServer.shared()
        let encoded = server.socketDirectory.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        for (host, query) in [(encoded, nil), ("", "host=\(server.socketDirectory)"), ("127.0.0.1", "host=\(server.socketDirectory)&sslmode=require")] {
            let seen = try await session(server, query, host: host)
            #expect(seen.socket, "host \(host), \(query ?? "")")
            #expect(!seen.ssl)
        }
        #expect(try await !session(server, nil).socket)
    }

    @Test("the server shows the node's connections as herald, or as the URL's application_name")
    func applicationName() async throws {
        let server = try await PostgresTestServer.shared()
        #expect(try await session(server, nil).applicationName == "herald")
        #expect(try await session(server, "application_name=herald-eu-1").applicationName == "herald-eu-1")
    }

    /// What the server knows of a ready store's connection: TLS, the client certificate's subject,
    /// whether it came over the Unix-domain socket, its application name.
    private func session(
        _ server: PostgresTestServer, _ query: String?, host: String = "127.0.0.1"
    ) async throws -> (ssl: Bool, clientDN: String, socket: Bool, applicationName: String) {
        let store = try await open(server, query, host: host)
        do {
            try await store.waitUntilReady(timeout: .seconds(30))
            let seen = try await store.withConnection { connection in
                var result: (Bool, String, Bool, String) = (false, "", false, "")
                for try await row in try await connection.query("""
                    SELECT t.ssl, coalesce(t.client_dn, ''), a.client_port = -1, a.application_name
                    FROM pg_stat_ssl AS t JOIN pg_stat_activity AS a USING (pid) WHERE pid = pg_backend_pid()
                    """, logger: Logger(label: "test")
                ).decode((Bool, String, Bool, String).self) {
                    result = row
                }
                return result
            }
            try await store.close()
            return seen
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// A connection with the TLS settings the URL gives the store fails its handshake (checked on
    /// one connection, which answers at once, rather than by a store that keeps retrying).
    private func expectRefused(_ server: PostgresTestServer, _ query: String) async throws {
        let database = try await server.createDatabase()
        let configuration = try PostgresStoreConfiguration(
            url: "postgres://\(server.username):\(server.password)@127.0.0.1:\(server.port)/\(database)?\(query)")
        let tls = try #require(try configuration.tlsConfiguration())
        await #expect(throws: (any Error).self, "\(query)") {
            let connection = try await PostgresConnection.connect(
                configuration: PostgresConnection.Configuration(
                    host: configuration.host, port: configuration.port, username: configuration.username,
                    password: configuration.password, database: configuration.database, tls: .require(try NIOSSLContext(configuration: tls))),
                id: 1, logger: Logger(label: "herald.test.tls"))
            try await connection.close()
        }
    }

    private func open(_ server: PostgresTestServer, _ query: String?, host: String) async throws -> PostgresStore {
        let database = try await server.createDatabase()
        var url = "postgres://\(server.username):\(server.password)@\(host):\(server.port)/\(database)"
        if let query { url += "?" + query }
        var configuration = try PostgresStoreConfiguration(url: url)
        configuration.poolSize = 2
        var logger = Logger(label: "herald.store.postgres.tls-test")
        logger.logLevel = .critical
        let store = try PostgresStore(configuration: configuration, logger: logger)
        Task { try await store.run() }
        return store
    }
}
