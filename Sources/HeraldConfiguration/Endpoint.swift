import HeraldCore

extension HeraldConfiguration {
    /// An address to listen on (`host`, `port`).
    public struct Endpoint: Sendable, Equatable {
        /// The address or host name to bind; default `0.0.0.0` (every IPv4 interface).
        public var host: String
        /// The port, 1–65535; default 8080 for `server.http` (required for `server.udp`).
        public var port: Int

        /// Creates an endpoint.
        public init(host: String = "0.0.0.0", port: Int = 8080) {
            self.host = host
            self.port = port
        }

        /// Reads `section`, filling what is absent from `defaults`; a `nil` default port makes `port` required.
        init(section: ConfigSection, defaultHost: String, defaultPort: Int?) throws(ConfigurationError) {
            try section.rejectUnknownKeys(schema: ConfigurationSchema.endpoint)
            let host = try section.nonEmptyString("host") ?? defaultHost
            guard let port = try section.port("port") ?? defaultPort else {
                throw ConfigurationError(key: section.keyPath("port"), "is required")
            }
            self.init(host: host, port: port)
        }
    }
}
