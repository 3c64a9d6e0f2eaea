import HeraldConfiguration
import HeraldCore
import HeraldIntake

/// `compat.apns_ms`, read (compat.md §4.1): the provider notifications go through, where the
/// port listens and whether it serves TLS.
struct ApnsMSSettings: Sendable, Equatable {
    /// The provider name (an `apns` kind).
    var provider: String
    /// The address the listener binds (apns-ms's `--address`).
    var host: String
    /// The port (apns-ms's `--port`).
    var port: Int
    /// TLS on the port (`tls`, as `server.http.tls`); `nil` for plain HTTP (apns-ms's default).
    var tls: HeraldConfiguration.ListenerTLS?

    /// The defaults of compat.md §4.1, apns-ms's own; the provider is `apns` when none is named.
    static let defaultProvider = "apns"
    static let defaultHost = "0.0.0.0"
    static let defaultPort = 9090

    /// Reads the section; the loader checked its keys, shapes, port and provider name already.
    ///
    /// Port 0 (the kernel's choice) passes here although the loader refuses it: only a caller that
    /// builds its configuration in code, such as the tests' server, can ask for it.
    init(section: ConfigSection, hasProvider: (String) -> Bool) throws(ConfigurationError) {
        provider = try section.frontEndProvider(default: Self.defaultProvider, exists: hasProvider)
        host = try section.frontEndHost(default: Self.defaultHost)
        port = try section.int("port", in: 0...65535) ?? Self.defaultPort
        tls = try section.section("tls").map { tls throws(ConfigurationError) in try HeraldConfiguration.ListenerTLS(section: tls) }
    }
}
