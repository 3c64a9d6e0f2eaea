import HeraldCore
import HeraldWebhook
import Logging

/// The `wns` provider kind: Windows Push Notification Services (providers.md §4, pushd-api.md §10.5).
///
/// ```yaml
/// wns-toast:
///   kind: wns
///   type: toast                    # toast | tile | badge | raw
///   client_id: ms-app://s-1-15-2-...
///   client_secret_file: wns-secret.txt
///   launch_template: "event=${event.name}"
/// ```
public struct WNSKind: ProviderKind {
    /// Where access tokens come from unless `token_endpoint` says otherwise.
    public static let defaultTokenEndpoint = "https://login.live.com/accesstoken.srf"

    /// Creates the kind.
    public init() {}

    public var name: String { "wns" }

    /// `type` (default toast), `client_id`, `client_secret` or `client_secret_file`, `token_endpoint` (default
    /// ``defaultTokenEndpoint``), `launch_template`, `tile_mapping` (accepted for rs/pushd configurations, unused),
    /// `timeout` (seconds per request, default 30), `max_concurrent` (default 256), `deny` and `allow` (address
    /// blocks replacing `outbound.deny` and `outbound.allow` for this provider's channels); `ca_file` is common to
    /// all kinds.
    public var optionKeys: Set<String> {
        [
            "type", "client_id", "client_secret", "client_secret_file", "token_endpoint", "launch_template", "tile_mapping",
            "timeout", "max_concurrent", "deny", "allow",
        ]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        let typeName = try options.string("type") ?? "toast"
        guard let type = WNSNotificationType(rawValue: typeName) else {
            throw ConfigurationError(key: options.keyPath("type"), "expected toast, tile, badge or raw, got \"\(typeName)\"")
        }
        var settings = WNSProvider.Settings(
            clientID: try options.requiredString("client_id"),
            clientSecret: try options.secret("client_secret", fileKey: "client_secret_file"))
        settings.type = type
        if let endpoint = try options.string("token_endpoint") {
            guard endpoint.lowercased().hasPrefix("https://"), ChannelOrigin(url: endpoint) != nil else {
                throw ConfigurationError(key: options.keyPath("token_endpoint"), "expected an https URL, got \"\(endpoint)\"")
            }
            settings.tokenEndpoint = endpoint
            settings.tokenEndpointConfigured = true
        }
        if let launch = try options.string("launch_template") { settings.launchTemplate = Template(launch) }
        if options.contains("tile_mapping") {
            _ = try options.section("tile_mapping")
            // rs/pushd's wns tile needed a mapping; Herald's tile has a fixed layout (§10.5), so old files still load.
            environment.logger.warning(
                "tile_mapping is not used by wns providers: tiles show the title and message",
                metadata: ["provider": "\(name)"])
        }
        settings.http = try options.providerHTTPSettings()
        let tls = try options.outboundTLS(environment: environment)
        let egress = try await options.egressGuard(environment: environment, connectTimeout: settings.http.connectTimeout)
        return WNSProvider(name: name, settings: settings, tls: tls, egress: egress, logger: environment.logger, clock: environment.clock)
    }
}
