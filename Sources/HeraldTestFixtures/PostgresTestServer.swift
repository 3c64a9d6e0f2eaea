import Foundation
import HeraldSimulators
import Synchronization

/// A real PostgreSQL server for tests: a fresh cluster in a temporary directory, listening on a
/// free loopback port, with a password-authenticated (scram-sha-256) role that is not a superuser
/// and creates its own databases. It also accepts TLS (`ssl = on`), with a certificate for
/// `localhost` only, issued by a test authority (``certificateAuthorityFile``), and asks clients
/// for a certificate of that authority (optional: plain and TLS connections log in alike).
///
/// Debian's `postgresql` package provides the binaries (`/usr/lib/postgresql/<version>/bin`);
/// `scripts/bootstrap` installs it. `initdb` refuses to run as root, so as root the cluster
/// belongs to the `postgres` system user and every server command runs through `runuser`.
/// Each start uses a new directory and port, so a server left behind by a killed test process
/// cannot get in the way; such leftovers are stopped and removed by the next start.
public final class PostgresTestServer: Sendable {
    /// The address the server listens on.
    public let host = "127.0.0.1"
    /// The port it listens on.
    public let port: Int
    /// The test role: `LOGIN CREATEDB`, not a superuser.
    public let username = "herald"
    /// The test role's password.
    public let password: String
    /// The directory of the server's Unix-domain socket (`.s.PGSQL.<port>`), where any local
    /// role logs in without a password.
    public var socketDirectory: String { directory }
    /// The PEM file of the authority that issued the server's certificate (for `localhost`, not
    /// for `127.0.0.1`) and ``clientCertificateFile``.
    public var certificateAuthorityFile: String { directory + "/tls/ca.pem" }
    /// A client certificate of that authority (subject `CN=Apple Push Services: herald`, `UID=herald`).
    public var clientCertificateFile: String { directory + "/tls/client.pem" }
    /// The key of ``clientCertificateFile``.
    public var clientKeyFile: String { directory + "/tls/client-key.pem" }
    private let directory: String
    private let binaries: String
    private let runAsPostgres: Bool
    private let databases = Atomic(0)

    /// The server every test of the process shares, started on first use and stopped at exit.
    public static func shared() async throws -> PostgresTestServer {
        try await sharedStart.value
    }

    private static let sharedStart = Task<PostgresTestServer, any Error> {
        try await PostgresTestServer.start()
    }

    /// Starts a server of its own (for a test that stops or restarts it), stopped and removed at
    /// exit like the shared one.
    public static func start() async throws -> PostgresTestServer {
        let binaries = try findBinaries()
        let runAsPostgres = getuid() == 0
        removeLeftovers(binaries: binaries, runAsPostgres: runAsPostgres)
        let directory = "/tmp/herald-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try writeCertificates(into: directory + "/tls")
        if runAsPostgres {
            try await run("/bin/chown", ["-R", "postgres:postgres", directory])
        }
        let password = UUID().uuidString
        let passwordFile = directory + "/superuser-password"
        try "\(UUID().uuidString)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if runAsPostgres { try await run("/bin/chown", ["postgres:postgres", passwordFile]) }
        // A free port, released at once: the server binds it a moment later.
        let reserved = try ReservedPort()
        let port = reserved.port
        reserved.close()
        let server = PostgresTestServer(
            port: port, password: password, directory: directory, binaries: binaries, runAsPostgres: runAsPostgres)
        do {
            try await server.create()
        } catch {
            stopNow(pgCtl: binaries + "/pg_ctl", directory: directory, runAsPostgres: runAsPostgres)
            throw error
        }
        server.stopAtExit()
        return server
    }

    /// Makes the cluster, starts it and creates the test role.
    private func create() async throws {
        let passwordFile = directory + "/superuser-password"
        // The socket directory is the cluster's own, so the superuser connects over it without a
        // password (`trust` for local connections only); TCP asks for the password.
        try await server("initdb", [
            "-D", directory + "/data", "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
            "--locale=C", "--pwfile=" + passwordFile,
        ])
        try await startServer()
        try await server("psql", [
            "-h", directory, "-p", String(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q",
            "-c", "CREATE ROLE \(username) LOGIN CREATEDB PASSWORD '\(password)'",
        ])
    }

    private init(port: Int, password: String, directory: String, binaries: String, runAsPostgres: Bool) {
        self.port = port
        self.password = password
        self.directory = directory
        self.binaries = binaries
        self.runAsPostgres = runAsPostgres
    }

    /// Creates a new, empty database owned by the test role and returns its name.
    public func createDatabase() async throws -> String {
        let name = "herald_\(databases.add(1, ordering: .relaxed).newValue)"
        try await server("psql", [
            "-h", directory, "-p", String(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q",
            "-c", "CREATE DATABASE \(name) OWNER \(username)",
        ])
        return name
    }

    /// `postgres://herald:<password>@127.0.0.1:<port>/<database>`, as `server.database` takes it.
    public func url(database: String) -> String {
        "postgres://\(username):\(password)@\(host):\(port)/\(database)"
    }

    /// Stops the server, cutting every connection: `immediate` as by a crash, which with this
    /// cluster's `synchronous_commit=off` may lose the last commits; `fast` (the default) writes
    /// them first, as an orderly restart of a production server would.
    public func stop(immediately: Bool = false) async throws {
        try await server("pg_ctl", ["-D", directory + "/data", "-m", immediately ? "immediate" : "fast", "-w", "stop"])
    }

    /// Starts the server again after ``stop()``, on the same port with the same data.
    public func restart() async throws {
        try await startServer()
    }

    private func startServer() async throws {
        // fsync and full-page writes off: a test cluster is thrown away, and they cost seconds.
        let options = [
            "-p \(port)", "-k \(directory)", "-c listen_addresses=127.0.0.1", "-c max_connections=400", "-c fsync=off",
            "-c synchronous_commit=off", "-c full_page_writes=off", "-c shared_buffers=64MB",
            "-c ssl=on", "-c ssl_cert_file=\(directory)/tls/server.pem", "-c ssl_key_file=\(directory)/tls/server-key.pem",
            "-c ssl_ca_file=\(certificateAuthorityFile)",
        ].joined(separator: " ")
        try await server("pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-o", options, "-w", "-t", "60", "start"])
    }

    /// Writes a new authority, the server's certificate and key, and a client certificate and key
    /// into `directory`; keys readable by their owner only, as PostgreSQL requires of its own.
    private static func writeCertificates(into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = try SimulatorCertificateAuthority(commonName: "Herald test PostgreSQL CA \(UUID().uuidString.prefix(8))")
        let server = try authority.issueServerCertificate(commonName: "localhost", names: [.dnsName("localhost")])
        try server.write(certificateFile: directory + "/server.pem", keyFile: directory + "/server-key.pem")
        let client = try authority.issueClientCertificate(topic: "herald")
        try client.certificatePEM.write(toFile: directory + "/client.pem", atomically: true, encoding: .utf8)
        try client.privateKeyPEM.write(toFile: directory + "/client-key.pem", atomically: true, encoding: .utf8)
        try authority.caCertificatePEM.write(toFile: directory + "/ca.pem", atomically: true, encoding: .utf8)
        for key in ["/server-key.pem", "/client-key.pem"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + key)
        }
    }

    /// Stops the server and removes its directory when the process exits.
    private func stopAtExit() {
        let first = Self.atExit.withLock { servers in
            servers.append((binaries + "/pg_ctl", directory, runAsPostgres))
            return servers.count == 1
        }
        guard first else { return }
        atexit {
            for (pgCtl, directory, runAsPostgres) in PostgresTestServer.atExit.withLock({ $0 }) {
                PostgresTestServer.stopNow(pgCtl: pgCtl, directory: directory, runAsPostgres: runAsPostgres)
            }
        }
    }

    /// The clusters to stop at exit: `pg_ctl`, directory, whether to run it as `postgres`.
    private static let atExit = Mutex<[(String, String, Bool)]>([])

    /// Stops a cluster synchronously and removes its directory (exit handlers cannot await).
    private static func stopNow(pgCtl: String, directory: String, runAsPostgres: Bool) {
        let arguments = ["-D", directory + "/data", "-m", "immediate", "-w", "stop"]
        if FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") {
            _ = try? spawnAndWait(
                runAsPostgres ? "/sbin/runuser" : pgCtl, runAsPostgres ? ["-u", "postgres", "--", pgCtl] + arguments : arguments,
                outputPath: "/dev/null")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops and removes the clusters of test processes that are gone (killed before their exit handler ran).
    private static func removeLeftovers(binaries: String, runAsPostgres: Bool) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/tmp") else { return }
        for entry in entries where entry.hasPrefix("herald-pg-") {
            let parts = entry.split(separator: "-")
            guard parts.count >= 4, let pid = Int32(parts[2]), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            stopNow(pgCtl: binaries + "/pg_ctl", directory: "/tmp/" + entry, runAsPostgres: runAsPostgres)
        }
    }

    /// The newest installed PostgreSQL's binaries.
    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        guard let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb") else {
            throw PostgresTestServerError("PostgreSQL is not installed (no \(root)/<version>/bin/initdb): run scripts/bootstrap or apt-get install postgresql")
        }
        return "\(root)/\(newest)/bin"
    }

    /// Runs one of the server's binaries, as `postgres` when this process is root.
    private func server(_ tool: String, _ arguments: [String]) async throws {
        let path = binaries + "/" + tool
        if runAsPostgres {
            try await Self.run("/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
        } else {
            try await Self.run(path, arguments)
        }
    }

    /// Runs a program to its end; throws with its output when it fails.
    ///
    /// Spawned and reaped here (`posix_spawn`, `waitpid` on a thread of its own) rather than with
    /// `Process`: `pg_ctl start` leaves the server running with the descriptors it inherited, and
    /// `Process` then never saw its child end. The output goes to a file for the same reason.
    private static func run(_ path: String, _ arguments: [String]) async throws {
        let outputPath = NSTemporaryDirectory() + "herald-pgcmd-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try spawnAndWait(path, arguments, outputPath: outputPath) })
            }
        }
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw PostgresTestServerError("\((path as NSString).lastPathComponent) \(arguments.first ?? "") failed (\(status)): \(text)")
        }
    }

    /// Adds a file action closing every descriptor above standard error in the child.
    ///
    /// `pg_ctl start` leaves the server running as a daemon: without this it would hold whatever
    /// the test process had open (sockets, the build's lock file) for as long as it lives, even
    /// after the test process was killed. glibc has the action since 2.34 but Swift does not import
    /// it, so it is looked up by name.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
    }

    /// Spawns `path` with its output in `outputPath` and waits for it; returns its exit status.
    private static func spawnAndWait(_ path: String, _ arguments: [String], outputPath: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw PostgresTestServerError("cannot run \(path): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw PostgresTestServerError("cannot wait for \(path): errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// The test server could not be set up; the message says which step failed and its output.
public struct PostgresTestServerError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
