import Foundation

/// How a ``PostgresStore`` reaches its database and paces its background work.
///
/// Every tunable has a default that suits a node on the same network as its database; a
/// deployment normally gives only the URL (``init(url:)``).
public struct PostgresStoreConfiguration: Sendable, CustomStringConvertible {
    /// Whether connections use TLS, and what of the server's certificate is checked: libpq's
    /// `sslmode` values, with their meaning.
    public enum TLSMode: String, Sendable {
        /// Plain TCP (`sslmode=disable`, the default when the URL names none).
        case disable
        /// TLS when the server offers it, plain otherwise; the certificate is not checked
        /// (`sslmode=prefer`, and `allow`, which libpq tries plain first).
        case prefer
        /// TLS or no connection; the certificate is not checked unless ``PostgresStoreConfiguration/rootCertificateFile``
        /// is given, which makes it `verify-ca`, as in libpq (`sslmode=require`).
        case require
        /// TLS with a certificate issued by a trusted authority, whatever name it is for
        /// (`sslmode=verify-ca`).
        case verifyCA = "verify-ca"
        /// TLS with a trusted certificate for the host the URL names (`sslmode=verify-full`).
        case verifyFull = "verify-full"
    }

    /// The server's host name or address, or the directory of its Unix-domain socket (a path,
    /// as libpq takes it: the socket is `<directory>/.s.PGSQL.<port>`).
    public var host: String
    /// The server's TCP port (default 5432).
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// The role's password, if any. Never logged (see ``description``).
    public var password: String?
    /// The database, owned by ``username``; Herald creates and migrates its own tables in it.
    public var database: String
    /// TLS for the connections (default ``TLSMode/disable``, or what the URL's `sslmode` asks).
    public var tls: TLSMode = .disable
    /// PEM file of the certificate authorities that `verify-ca` and `verify-full` trust (the URL's
    /// `sslrootcert`); `nil` (or `sslrootcert=system`) trusts the system's authorities.
    public var rootCertificateFile: String?
    /// PEM file of the client certificate (and its chain) shown when the server asks for one
    /// (the URL's `sslcert`, with ``clientKeyFile``).
    public var clientCertificateFile: String?
    /// PEM file of the client certificate's private key (the URL's `sslkey`).
    public var clientKeyFile: String?
    /// Most connections the node opens (default 10), the listener's included: it holds one
    /// connection for as long as the store runs.
    public var poolSize: Int = 10
    /// How long a call waits for a connection before answering ``HeraldStore/StoreError/unavailable``
    /// (default 5 s), so that the intake answers 503 rather than hanging while the database is away.
    public var acquireTimeout: Duration = .seconds(5)
    /// How long a call made before the store is ready (connected and migrated) waits for it
    /// (default 10 s).
    public var readyTimeout: Duration = .seconds(10)
    /// How often the store reads the database's clock again to correct its cached offset (default 30 s).
    public var clockRefreshInterval: Duration = .seconds(30)
    /// The `LISTEN`/`NOTIFY` channel the nodes of one database share (default `herald`).
    public var channel: String = "herald"
    /// Timeout of one TCP connection attempt (default 5 s, or the URL's `connect_timeout`).
    public var connectTimeout: Duration = .seconds(5)
    /// The name the server shows for the node's connections in `pg_stat_activity` (default
    /// `herald`, or the URL's `application_name`).
    public var applicationName: String = "herald"

    /// Whether ``host`` names a Unix-domain socket's directory rather than a host.
    public var usesUnixSocket: Bool { host.hasPrefix("/") }

    /// The socket's path when ``usesUnixSocket``.
    public var unixSocketPath: String { (host.hasSuffix("/") ? host : host + "/") + ".s.PGSQL.\(port)" }

    /// Creates a configuration from its parts.
    public init(host: String, port: Int = 5432, username: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses `postgres://user:password@host:port/db?sslmode=require` (also `postgresql://`);
    /// user, password, host and database may be percent-encoded. Query parameters, as libpq
    /// names them: `host` (instead of the URL's; a path is a Unix-domain socket's directory, as
    /// is a percent-encoded path in the URL's host), `sslmode` (`disable`, `allow`, `prefer`,
    /// `require`, `verify-ca`, `verify-full`), `sslrootcert` (a PEM file, or `system`), `sslcert`
    /// and `sslkey` (PEM files, both or neither), `connect_timeout` (seconds),
    /// `application_name`; and Herald's `pool_size`. Others are ignored.
    ///
    /// - Throws: ``PostgresURLError`` naming the part that is missing or wrong (never the password).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else { throw PostgresURLError("not a postgres:// URL") }
        var host = components.percentEncodedHost.map { $0.removingPercentEncoding ?? $0 } ?? ""
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let user = components.user, !user.isEmpty else { throw PostgresURLError("the URL names no user") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.removingPercentEncoding ?? path
        self.init(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.isEmpty ? (user.removingPercentEncoding ?? user) : database)
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("host", let value): self.host = value
            case ("sslmode", "disable"): tls = .disable
            case ("sslmode", "allow"), ("sslmode", "prefer"): tls = .prefer
            case ("sslmode", "require"): tls = .require
            case ("sslmode", "verify-ca"): tls = .verifyCA
            case ("sslmode", "verify-full"): tls = .verifyFull
            case ("sslmode", let other): throw PostgresURLError("unknown sslmode \(other)")
            case ("sslrootcert", "system"): rootCertificateFile = nil
            case ("sslrootcert", let path): rootCertificateFile = path
            case ("sslcert", let path): clientCertificateFile = path
            case ("sslkey", let path): clientKeyFile = path
            case ("connect_timeout", let value):
                guard let seconds = Int(value), seconds > 0 else { throw PostgresURLError("connect_timeout must be a positive number of seconds") }
                connectTimeout = .seconds(seconds)
            case ("application_name", let value): applicationName = value
            case ("pool_size", let value):
                guard let size = Int(value), size >= 2 else { throw PostgresURLError("pool_size must be an integer of at least 2") }
                poolSize = size
            default: continue
            }
        }
        guard !self.host.isEmpty else { throw PostgresURLError("the URL names no host") }
        if (clientCertificateFile == nil) != (clientKeyFile == nil) {
            throw PostgresURLError("sslcert and sslkey go together")
        }
    }

    /// The URL without its password, for logs.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)&pool_size=\(poolSize)"
    }
}

/// A `postgres://` URL that cannot be used; the message never contains the password.
public struct PostgresURLError: Error, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
