import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldIntake

/// `unifiedpush`, read: where the push server listens, the URL it hands out, and its limits.
struct UnifiedPushSettings: Sendable, Equatable {
    /// The address the listener binds; default `0.0.0.0`.
    var host: String
    /// Its port; default 8090.
    var port: Int
    /// TLS on the port, as `server.http.tls`; `nil`: plain HTTP (behind a proxy that terminates TLS).
    var tls: HeraldConfiguration.ListenerTLS?
    /// The URL app servers and distributors reach the listener at (endpoints are `<base_url>/<topic>`),
    /// whose origin is the `aud` a VAPID token must name; default `http://<host>:<port>`.
    var baseURL: String
    /// The longest a message is kept (`max_ttl`, seconds); default 7 days.
    var maxTTL: Int64
    /// A topic nobody subscribed to for this long answers pushes 404 (`topic_idle`, seconds); default 30 days.
    var topicIdle: Int64
    /// How often a subscription gets a `keepalive` event (`keepalive`, seconds); default 45.
    var keepalive: Duration
    /// Pushes per topic (`rate: {rate, burst}`, the rate-limit section's form); default none.
    var rate: HeraldConfiguration.RateLimit?

    static let defaultPort = 8090

    init(section: ConfigSection) throws(ConfigurationError) {
        host = try section.frontEndHost(default: "0.0.0.0")
        port = try section.int("port", in: 0...65535) ?? Self.defaultPort
        tls = try section.section("tls").map { tls throws(ConfigurationError) in try HeraldConfiguration.ListenerTLS(section: tls) }
        let configured = try section.string("base_url")
        baseURL = configured ?? "\(tls == nil ? "http" : "https")://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
        if baseURL.hasSuffix("/") { baseURL.removeLast() }
        guard let endpoint = ServiceEndpoint(url: baseURL), endpoint.path.isEmpty || endpoint.path == "/" else {
            throw ConfigurationError(key: section.keyPath("base_url"), "expected an http(s) URL without a path, got \"\(baseURL)\"")
        }
        maxTTL = Int64(try section.duration("max_ttl", minimum: .seconds(1))?.components.seconds ?? 604_800)
        topicIdle = Int64(try section.duration("topic_idle", minimum: .seconds(1))?.components.seconds ?? 2_592_000)
        keepalive = try section.duration("keepalive", minimum: .milliseconds(10)) ?? .seconds(45)
        rate = try section.section("rate").map { rate throws(ConfigurationError) in try HeraldConfiguration.RateLimit(section: rate) }
    }

    /// The origin of ``baseURL``: the audience of the VAPID tokens app servers send.
    var origin: String { ServiceEndpoint(url: baseURL)?.origin ?? baseURL }
}
