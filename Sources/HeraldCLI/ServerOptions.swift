import ArgumentParser

/// The options that choose and override a server's configuration, shared by `herald serve` and
/// `herald config check` so that the check loads exactly what the server would.
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file.")
    var config: String?

    @Option(name: .long, help: "HTTP port (overrides server.http.port).")
    var port: Int?

    @Option(name: .long, help: "Database URL: sqlite:PATH or postgres://user:password@host:5432/db (overrides server.database).")
    var database: String?

    @Option(name: .long, help: "trace|debug|info|notice|warning|error|critical (overrides log.level).")
    var logLevel: String?
}
