import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldWebhook
import Logging
import NIOSSL

/// The `apns` provider kind: Apple Push Notification service over HTTP/2, token or certificate auth.
public struct APNsKind: ProviderKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "apns" }

    /// The keys of interface.md and pushd-api.md §10, plus the connection limits and the HTTP/2
    /// engine (`http2_engine`: `nghttp2`, the default, or `nio`).
    public var optionKeys: Set<String> {
        [
"environment", "endpoint", "broadcast_endpoint", "topic", "team_id", "key_id", "key_file", "cert", "cert_file", "cert_key", "cert_key_file",
            "payload_filter", "category", "content_available", "alert_title",
            "max_connections", "max_streams_per_connection", "max_concurrent", "request_timeout", "http2_engine",
        ]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        let apnsEnvironment: APNsEnvironment
        switch try options.string("environment") ?? "production" {
        case "production": apnsEnvironment = .production
        case "sandbox", "development": apnsEnvironment = .sandbox
        case let other: throw ConfigurationError(key: options.keyPath("environment"), "expected production or sandbox, got \"\(other)\"")
        }
        var host = apnsEnvironment.host
        var port = 443
        let endpointConfigured = options.contains("endpoint")
        if let endpoint = try options.string("endpoint") {
            guard let components = URLComponents(string: endpoint), components.scheme == "https", let endpointHost = components.host else {
                throw ConfigurationError(key: options.keyPath("endpoint"), "expected an https URL, got \"\(endpoint)\"")
            }
            host = endpointHost
            port = components.port ?? 443
        }
        let topic = try options.string("topic")
        let tokenAuth = options.contains("key_file") || options.contains("key_id") || options.contains("team_id")
        let certificateAuth = ["cert", "cert_file", "cert_key", "cert_key_file"].contains(where: options.contains)
        if tokenAuth == certificateAuth {
            throw ConfigurationError(key: options.path, "needs either team_id, key_id and key_file (token authentication) or cert_file and cert_key_file, or cert and cert_key inline (certificate authentication)")
        }

        var tls = try options.outboundTLS(environment: environment)
        tls.applicationProtocols = ["h2"]

        var token: APNsProviderToken?
        if tokenAuth {
            guard topic != nil else { throw ConfigurationError(key: options.keyPath("topic"), "is required with token authentication") }
            let keyFile = try options.requiredString("key_file")
            let pem: String
            do {
                pem = try String(contentsOfFile: keyFile, encoding: .utf8)
            } catch {
                throw ConfigurationError(key: options.keyPath("key_file"), "cannot read \(keyFile)")
            }
            do {
                let clock = environment.clock
                token = try await APNsProviderToken(
                    keyPEM: pem, keyID: try options.requiredString("key_id"), teamID: try options.requiredString("team_id"),
                    now: { Date(timeIntervalSince1970: Double(clock.nowMillis()) / 1000) })
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError(key: options.keyPath("key_file"), "not a P-256 private key (.p8)")
            }
        } else {
            // Inline PEM (suj-pusher's per-message `cert`, which may hold the key too) or files.
            let certificatePEM = try options.secret("cert", fileKey: "cert_file")
            let keyPEM = try options.secret("cert_key", fileKey: "cert_key_file")
            do {
                tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { .certificate($0) }
                guard !tls.certificateChain.isEmpty else { throw ConfigurationError(key: options.keyPath("cert"), "holds no certificate") }
            } catch {
                throw ConfigurationError(key: options.keyPath(options.contains("cert") ? "cert" : "cert_file"), "cannot read a PEM certificate")
            }
            do {
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
            } catch {
                throw ConfigurationError(key: options.keyPath(options.contains("cert_key") ? "cert_key" : "cert_key_file"), "cannot read a PEM private key")
            }
        }

        var settings = APNsProvider.Settings(topic: topic, authority: port == 443 ? host : "\(host):\(port)")
        if let limit = try options.int("max_concurrent", in: 1...1_000_000) { settings.maxConcurrentDeliveries = limit }
        if let timeout = try options.duration("request_timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }
        settings.environment = apnsEnvironment
        let renderer = APNsPayloadRenderer(
            payloadFilter: try options.stringList("payload_filter").map(Set.init),
            defaultCategory: try options.string("category"),
            defaultContentAvailable: try options.bool("content_available") ?? false,
            alertTitle: try options.bool("alert_title") ?? false
        )
        var poolConfiguration = HTTP2ClientConfiguration(host: host, port: port, tls: tls)
        if let limit = try options.int("max_connections", in: 1...64) { poolConfiguration.maxConnections = limit }
        if let limit = try options.int("max_streams_per_connection", in: 1...100_000) { poolConfiguration.maxConcurrentStreamsPerConnection = limit }
        let engine = try options.choice("http2_engine", as: HTTP2Engine.self) ?? poolConfiguration.engine
        poolConfiguration.engine = engine
        poolConfiguration.streamDeadline = settings.requestTimeout
        let pool = HTTP2ConnectionPool(configuration: poolConfiguration, logger: environment.logger)
        var otherPool: HTTP2ConnectionPool?
        if !endpointConfigured {
            var other = poolConfiguration
            other.host = apnsEnvironment.other.host
            otherPool = HTTP2ConnectionPool(configuration: other, logger: environment.logger)
        }
        // Broadcast channels (iOS 18) live on a management host of their own, for token
        // authentication only; no connection opens until a channel is managed.
        var channels: APNsChannelManager?
        if let token, let topic {
            var management = HTTP2ClientConfiguration(host: apnsEnvironment.broadcastHost, port: apnsEnvironment.broadcastPort, tls: tls)
            if let endpoint = try options.string("broadcast_endpoint") {
                guard let components = URLComponents(string: endpoint), components.scheme == "https", let endpointHost = components.host else {
                    throw ConfigurationError(key: options.keyPath("broadcast_endpoint"), "expected an https URL, got \"\(endpoint)\"")
                }
                management.host = endpointHost
                management.port = components.port ?? 443
            }
            management.maxConnections = 1
            management.engine = engine
            management.streamDeadline = settings.requestTimeout
            channels = APNsChannelManager(
                pool: HTTP2ConnectionPool(configuration: management, logger: environment.logger), token: token, bundleID: topic,
                timeout: settings.requestTimeout)
        } else if options.contains("broadcast_endpoint") {
            throw ConfigurationError(key: options.keyPath("broadcast_endpoint"), "needs token authentication and a topic (Apple manages channels for tokens only)")
        }
        return APNsProvider(
            name: name, settings: settings, renderer: renderer, pool: pool, otherEnvironmentPool: otherPool, token: token,
            logger: environment.logger, clock: environment.clock, channels: channels)
    }
}
