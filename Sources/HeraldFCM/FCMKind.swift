import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldWebhook
import Logging
import NIOCore

/// The `fcm` provider kind: Firebase Cloud Messaging HTTP v1 with a service account (pushd-api.md §10.2).
///
/// ```yaml
/// gcm:
///   kind: fcm
///   service_account_file: service-account.json   # or service_account: '{"type":"service_account",...}'
///   endpoint: https://127.0.0.1:9444             # optional, replaces https://fcm.googleapis.com
/// ```
public struct FCMKind: ProviderKind {
    /// The FCM origin used when no `endpoint` is configured.
    public static let defaultEndpoint = "https://fcm.googleapis.com"

    /// Creates the kind.
    public init() {}

    public var name: String { "fcm" }

    /// `service_account_file` or `service_account` (one is required; the inline form is the key file's JSON text
    /// or the same fields as a mapping); `endpoint` (default
    /// `https://fcm.googleapis.com`); `token_endpoint` (default: the account's `token_uri`); `max_connections`
    /// (HTTP/2 connections, default 4); `max_streams_per_connection` (a local cap on the server's stream limit,
    /// default 1000); `max_concurrent` (deliveries in flight, default 2000); `request_timeout`
    /// (seconds per send and per token exchange, default 30); `http2_engine` (`nghttp2`, the default, or `nio`).
    /// `ca_file` is common to every kind.
    public var optionKeys: Set<String> {
        [
            "service_account_file", "service_account", "endpoint", "token_endpoint", "max_connections", "max_streams_per_connection",
            "max_concurrent", "request_timeout", "http2_engine",
        ]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        let account = try Self.serviceAccount(options)

        let endpointText = try options.string("endpoint") ?? Self.defaultEndpoint
        guard let endpoint = ServiceEndpoint(url: endpointText), endpoint.scheme == "https", endpoint.path.isEmpty || endpoint.path == "/" else {
            throw ConfigurationError(key: options.keyPath("endpoint"), "expected an https origin such as https://fcm.googleapis.com, got \"\(endpointText)\"")
        }
        var tokenEndpoint = account.tokenURI
        if let configured = try options.string("token_endpoint") {
            guard ServiceEndpoint(url: configured) != nil else {
                throw ConfigurationError(key: options.keyPath("token_endpoint"), "expected an http or https URL, got \"\(configured)\"")
            }
            tokenEndpoint = configured
        }

        var settings = FCMProvider.Settings(projectID: account.projectID)
        if let limit = try options.int("max_concurrent", in: 1...1_000_000) { settings.maxConcurrentDeliveries = limit }
        if let timeout = try options.duration("request_timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }

        let tls = try options.outboundTLS(environment: environment)

        var poolConfiguration = HTTP2ClientConfiguration(host: endpoint.host, port: endpoint.port, tls: tls)
        // FCM has been seen to allow 100 streams per connection; more connections carry the rest.
        if let limit = try options.int("max_connections", in: 1...64) { poolConfiguration.maxConnections = limit }
        if let limit = try options.int("max_streams_per_connection", in: 1...100_000) { poolConfiguration.maxConcurrentStreamsPerConnection = limit }
        if let engine = try options.choice("http2_engine", as: HTTP2Engine.self) { poolConfiguration.engine = engine }
        poolConfiguration.streamDeadline = settings.requestTimeout

        // Last: from here on the client must be shut down, which the provider does.
        let signer = await FCMAssertionSigner(account: account, audience: tokenEndpoint)
        // One token exchange serves every send waiting for a token, and `request_timeout` bounds it: retrying a
        // connection that failed within that deadline is worth more here than failing fast.
        let httpClient = OutboundHTTPClient.make(
            .init(readTimeout: settings.requestTimeout, retriesConnectionEstablishment: true), tls: tls)
        let pool = HTTP2ConnectionPool(configuration: poolConfiguration, logger: environment.logger)
        return FCMProvider(
            name: name, settings: settings, pool: pool, signer: signer, tokenEndpoint: tokenEndpoint,
            httpClient: httpClient, logger: environment.logger, clock: environment.clock)
    }

    /// The inline `service_account`: the key file's JSON text, or the same fields written as a YAML mapping.
    static func inlineServiceAccount(_ options: ConfigSection) throws(ConfigurationError) -> String? {
        guard case .map(let fields)? = options.values["service_account"] else {
            return try options.string("service_account")
        }
        var writer = JSONWriter()
        writer.beginObject()
        for (key, value) in fields {
            guard case .scalar(let text) = value else {
                throw ConfigurationError(key: options.keyPath("service_account.\(key)"), "expected a string")
            }
            writer.key(key)
            writer.string(text)
        }
        writer.endObject()
        return writer.text
    }

    /// Reads the service account from `service_account_file` or the inline `service_account`.
    static func serviceAccount(_ options: ConfigSection) throws(ConfigurationError) -> FCMServiceAccount {
        let file = try options.string("service_account_file")
        let inline = try inlineServiceAccount(options)
        switch (file, inline) {
        case (let file?, nil):
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError(key: options.keyPath("service_account_file"), "cannot read \(file)")
            }
            return try FCMServiceAccount(json: text, keyPath: options.keyPath("service_account_file"))
        case (nil, let inline?):
            return try FCMServiceAccount(json: inline, keyPath: options.keyPath("service_account"))
        case (nil, nil):
            throw ConfigurationError(key: options.path, "needs service_account_file (or an inline service_account)")
        case (_?, _?):
            throw ConfigurationError(key: options.path, "has both service_account_file and service_account; keep one")
        }
    }
}
