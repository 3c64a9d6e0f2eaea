import HeraldCore

extension HeraldConfiguration {
    /// An address to listen on (`host`, `port`, and for `server.http` optionally `tls`).
    public struct Endpoint: Sendable, Equatable {
        /// The address or host name to bind; default `0.0.0.0` (every IPv4 interface).
        public var host: String
        /// The port, 1–65535; default 8080 for `server.http` (required for `server.udp`).
        public var port: Int
        /// TLS on this listener (`server.http.tls`); default `nil` (plain HTTP). Only `server.http` takes it.
        public var tls: ListenerTLS?

        /// Creates an endpoint.
        public init(host: String = "0.0.0.0", port: Int = 8080, tls: ListenerTLS? = nil) {
            self.host = host
            self.port = port
            self.tls = tls
        }

        /// Reads `section`, filling what is absent from `defaults`; a `nil` default port makes `port` required.
        /// `schema` says whether the listener takes `tls` (``ConfigurationSchema/httpEndpoint``) or not.
        init(
            section: ConfigSection, defaultHost: String, defaultPort: Int?, schema: [String: KeyShape] = ConfigurationSchema.endpoint
        ) throws(ConfigurationError) {
            try section.rejectUnknownKeys(schema: schema)
            let host = try section.nonEmptyString("host") ?? defaultHost
            guard let port = try section.port("port") ?? defaultPort else {
                throw ConfigurationError(key: section.keyPath("port"), "is required")
            }
            let tls = try section.section("tls").map { tls throws(ConfigurationError) in try ListenerTLS(section: tls) }
            self.init(host: host, port: port, tls: tls)
        }
    }
}
