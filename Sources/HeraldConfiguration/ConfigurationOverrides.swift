/// Values from command-line flags, which win over the environment and the file.
public struct ConfigurationOverrides: Sendable, Equatable {
    /// `--port`: the HTTP port (`server.http.port`).
    public var port: Int?
    /// `--database`: the database URL (`server.database`).
    public var database: String?
    /// `--log-level`: the log level (`log.level`).
    public var logLevel: String?

    /// Creates overrides; `nil` leaves the key to the environment and the file.
    public init(port: Int? = nil, database: String? = nil, logLevel: String? = nil) {
        self.port = port
        self.database = database
        self.logLevel = logLevel
    }
}
