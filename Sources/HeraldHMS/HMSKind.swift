import HeraldCore
import HeraldWebhook
import Logging

/// The `hms` provider kind: Huawei Push Kit (HMS Core) server API v1, OAuth 2.0 client credentials, batched sends.
///
/// ```yaml
/// huawei:
///   kind: hms
///   client_id: "104567890"                  # the app id, also the OAuth client id
///   client_secret_file: hms-app-secret.txt   # or client_secret: …
///   badge_class: com.example.app.MainActivity   # optional: sends and counts badges
///   endpoint: https://127.0.0.1:9449         # optional, replaces https://push-api.cloud.huawei.com
///   token_endpoint: https://127.0.0.1:9449/oauth2/v3/token   # optional
/// ```
public struct HMSKind: ProviderKind {
    /// The Push Kit origin used when no `endpoint` is configured.
    public static let defaultEndpoint = "https://push-api.cloud.huawei.com"
    /// Where access tokens come from unless `token_endpoint` says otherwise.
    public static let defaultTokenEndpoint = "https://oauth-login.cloud.huawei.com/oauth2/v3/token"

    /// Creates the kind.
    public init() {}

    public var name: String { "hms" }

    /// `client_id` (required: the app id, which the send path names too), `client_secret` or `client_secret_file`
    /// (one is required; like every option, `HERALD_PROVIDERS_<NAME>_CLIENT_SECRET` overrides it), `endpoint` (an
    /// https origin, default ``defaultEndpoint``), `token_endpoint` (an https URL, default
    /// ``defaultTokenEndpoint``), `badge_class` (the app's launcher activity; Push Kit refuses badges without it, so
    /// badges are sent and counted only with it), `batch_size` (tokens per request, 1–1000, default 1000),
    /// `max_concurrent` (deliveries in flight, default 2000), `max_connections` (HTTP connections, default 8),
    /// `request_timeout` (seconds per request and per token request, default 30). `ca_file`, `max_in_flight` and
    /// `max_in_flight_per_host` are common to every kind.
    public var optionKeys: Set<String> {
        [
            "client_id", "client_secret", "client_secret_file", "endpoint", "token_endpoint", "badge_class", "batch_size",
            "max_concurrent", "max_connections", "request_timeout",
        ]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        let settings = try Self.settings(options, clientSecret: try options.secret("client_secret", fileKey: "client_secret_file"))
        let tls = try options.outboundTLS(environment: environment)
        return HMSProvider(name: name, settings: settings, tls: tls, logger: environment.logger, clock: environment.clock)
    }

    /// Checks everything but the secret's file, which is read only when the provider is built.
    public func validate(options: ConfigSection) throws(ConfigurationError) {
        let inline = try options.string("client_secret")
        let file = try options.string("client_secret_file")
        switch (inline, file) {
        case (nil, nil):
            throw ConfigurationError(key: options.keyPath("client_secret"), "is required (or client_secret_file)")
        case (.some, .some):
            throw ConfigurationError(key: options.path, "give either client_secret or client_secret_file, not both")
        default:
            break
        }
        _ = try Self.settings(options, clientSecret: inline ?? "")
    }

    /// The settings the options describe, with `clientSecret`.
    static func settings(_ options: ConfigSection, clientSecret: String) throws(ConfigurationError) -> HMSProvider.Settings {
        let clientID = try options.requiredString("client_id")
        // The app id is a path segment of every send: only characters that need no escaping there.
        guard clientID.unicodeScalars.allSatisfy({ $0.isASCII && (isAlphanumeric($0) || "-._~".unicodeScalars.contains($0)) }) else {
            throw ConfigurationError(key: options.keyPath("client_id"), "expected an app id such as 104567890, got \"\(clientID)\"")
        }
        var settings = HMSProvider.Settings(clientID: clientID, clientSecret: clientSecret)

        if let text = try options.string("endpoint") {
            guard let endpoint = ServiceEndpoint(url: text), endpoint.scheme == "https", endpoint.path.isEmpty || endpoint.path == "/" else {
                throw ConfigurationError(
                    key: options.keyPath("endpoint"), "expected an https origin such as https://push-api.cloud.huawei.com, got \"\(text)\"")
            }
            settings.endpoint = endpoint.origin
        }
        if let text = try options.string("token_endpoint") {
            // The secret travels in the request's body: never in clear.
            guard let endpoint = ServiceEndpoint(url: text), endpoint.scheme == "https" else {
                throw ConfigurationError(key: options.keyPath("token_endpoint"), "expected an https URL, got \"\(text)\"")
            }
            settings.tokenEndpoint = text
        }
        if let badgeClass = try options.string("badge_class") {
            guard !badgeClass.trimmingWhitespace().isEmpty else {
                throw ConfigurationError(
                    key: options.keyPath("badge_class"), "expected the app's launcher activity, such as com.example.app.MainActivity")
            }
            settings.badgeClass = badgeClass.trimmingWhitespace()
        }
        if let size = try options.int("batch_size", in: 1...HMSProvider.maximumBatchSize) { settings.batchSize = size }
        if let limit = try options.int("max_concurrent", in: 1...1_000_000) { settings.maxConcurrentDeliveries = limit }
        if let limit = try options.int("max_connections", in: 1...64) { settings.maxConnections = limit }
        if let timeout = try options.duration("request_timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }
        return settings
    }

    /// Whether `scalar` is an ASCII letter or digit.
    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        default: false
        }
    }
}
