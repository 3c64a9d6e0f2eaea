import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldRedis

/// `compat.suj_pusher` (compat.md §2.1), read and checked.
struct SujPusherSettings: Sendable {
    /// The Redis server the queue is on.
    var redis: RedisURL
    /// The key prefix; default `pusher`.
    var namespace = "pusher"
    /// Replacements for Apple's hosts, by environment (`production`, `sandbox`).
    var apnsEndpoints: [String: String] = [:]
    /// GCM API keys mapped to the configured `fcm` (or `gcm-legacy`) provider that sends for them.
    var apiKeys: [String: String] = [:]
    /// Where legacy GCM requests go for an API key that `apiKeys` does not map; `nil`: nowhere.
    var legacyGCMEndpoint: String?
    /// Where WNS access tokens come from instead of `login.live.com` (a proxy, a simulator); channels
    /// on its origin are accepted besides `*.notify.windows.com`.
    var wnsTokenEndpoint: String?
    /// An origin whose WPNS channels are accepted besides `*.notify.live.net` (a proxy, a simulator).
    var wpnsEndpoint: String?

    /// The list producers `LPUSH` messages onto.
    var listKey: String { "\(namespace):suj_pusher_msgs" }
    /// The legacy pub/sub channel (suj-pusher ≤ 0.1.5).
    var channel: String { "\(namespace):suj_pusher_queue" }
    /// The list a node keeps the messages it took until they are in Herald's store.
    func processingList(node: Int) -> String { "\(namespace):suj_pusher_processing:\(node)" }
    /// The pattern of every node's processing list.
    var processingListPattern: String { "\(namespace):suj_pusher_processing:*" }

    /// Reads the section; the configuration already checked its shape and that `api_keys` name providers.
    init(section: ConfigSection) throws(ConfigurationError) {
        let redisText = try section.string("redis") ?? "redis://127.0.0.1:6379/0"
        if redisText.hasPrefix("rediss://") {
            throw ConfigurationError(key: section.keyPath("redis"), "TLS to Redis (rediss://) is not supported by this build; use a TLS tunnel")
        }
        guard let redis = RedisURL(redisText) else {
            throw ConfigurationError(key: section.keyPath("redis"), "expected redis://[:password@]host:port/db")
        }
        self.redis = redis
        if let namespace = try section.string("namespace") {
            guard !namespace.isEmpty else { throw ConfigurationError(key: section.keyPath("namespace"), "must not be empty") }
            self.namespace = namespace
        }
        if let endpoints = try section.section("apns_endpoints") {
            for environment in ["production", "sandbox"] {
                guard let url = try endpoints.string(environment) else { continue }
                try Self.checkHTTPS(url, key: endpoints.keyPath(environment))
                apnsEndpoints[environment] = url
            }
        }
        if let keys = try section.section("api_keys") {
            for key in keys.values.keys { apiKeys[key] = try keys.requiredString(key) }
        }
        if let endpoint = try section.string("legacy_gcm_endpoint") {
            try Self.checkHTTPS(endpoint, key: section.keyPath("legacy_gcm_endpoint"))
            legacyGCMEndpoint = endpoint
        }
        if let endpoint = try section.string("wns_token_endpoint") {
            try Self.checkHTTPS(endpoint, key: section.keyPath("wns_token_endpoint"))
            wnsTokenEndpoint = endpoint
        }
        if let endpoint = try section.string("wpns_endpoint") {
            guard let components = URLComponents(string: endpoint), ["http", "https"].contains(components.scheme?.lowercased()),
                components.host?.isEmpty == false
            else {
                throw ConfigurationError(key: section.keyPath("wpns_endpoint"), "expected an http(s) URL, got \"\(endpoint)\"")
            }
            wpnsEndpoint = endpoint
        }
    }

    private static func checkHTTPS(_ url: String, key: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https", components.host?.isEmpty == false else {
            throw ConfigurationError(key: key, "expected an https URL, got \"\(url)\"")
        }
    }
}
