import HeraldStorePostgres
import Testing

/// `server.database: postgres://…` as the store reads it.
@Suite("PostgreSQL: the database URL")
struct PostgresStoreConfigurationTests {
    @Test("user, password, host, port, database and TLS come from the URL; the description never shows the password")
    func parsesTheURL() throws {
        let configuration = try PostgresStoreConfiguration(url: "postgres://herald:s%40cret@db.example:6543/push?sslmode=require&pool_size=4")
        #expect(configuration.username == "herald")
        #expect(configuration.password == "s@cret")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.database == "push")
        #expect(configuration.tls == .require)
        #expect(configuration.poolSize == 4)
        #expect(!configuration.description.contains("cret"))
    }

    @Test("defaults: port 5432, no TLS, the user's name as the database; postgresql:// is the same")
    func defaults() throws {
        let configuration = try PostgresStoreConfiguration(url: "postgresql://herald:pw@127.0.0.1")
        #expect(configuration.port == 5432)
        #expect(configuration.tls == .disable)
        #expect(configuration.database == "herald")
    }

    @Test("libpq's socket directories, connect_timeout and application_name; IPv6 literals")
    func libpqParameters() throws {
        let encoded = try PostgresStoreConfiguration(url: "postgres://herald@%2Fvar%2Frun%2Fpostgresql:5433/push")
        #expect(encoded.host == "/var/run/postgresql")
        #expect(encoded.usesUnixSocket)
        #expect(encoded.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5433")
        let parameter = try PostgresStoreConfiguration(url: "postgres://herald@/push?host=/run/pg/&connect_timeout=3&application_name=herald-a")
        #expect(parameter.unixSocketPath == "/run/pg/.s.PGSQL.5432")
        #expect(parameter.connectTimeout == .seconds(3))
        #expect(parameter.applicationName == "herald-a")
        let tcp = try PostgresStoreConfiguration(url: "postgres://herald:pw@[::1]:6000/push")
        #expect(tcp.host == "::1")
        #expect(!tcp.usesUnixSocket)
        #expect(tcp.applicationName == "herald")
        #expect(throws: PostgresURLError.self) { try PostgresStoreConfiguration(url: "postgres://herald@db/push?connect_timeout=soon") }
    }

    @Test("a URL without a host or user, or with an unknown sslmode, is refused without echoing the password")
    func refusesBadURLs() {
        for url in ["postgres://herald:topsecret@/db", "postgres://:topsecret@host/db", "postgres://u:topsecret@host/db?sslmode=maybe", "mysql://u:p@h/d"] {
            #expect(throws: PostgresURLError.self) { try PostgresStoreConfiguration(url: url) }
            do {
                _ = try PostgresStoreConfiguration(url: url)
            } catch {
                #expect(!"\(error)".contains("topsecret"))
            }
        }
    }
}
