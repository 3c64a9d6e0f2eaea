import HeraldCore
import HeraldWebhook
import OrderedCollections

/// The `mpns` provider kind: the retired Windows Phone push service (providers.md §5.1, pushd-api.md §10.6).
///
/// ```yaml
/// mpns-tile:
///   kind: mpns
///   type: tile                           # toast | tile | raw
///   tile_mapping: {title: "${data.team}", count: "${data.score}", backgroundImage: "/tile.png"}
/// ```
public struct MPNSKind: ProviderKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "mpns" }

    /// `type` (default toast), `param_template`, `tile_mapping` (required for tiles), `endpoint` (a simulator or
    /// proxy whose channel URLs are also accepted), `timeout` (seconds per request, default 30), `max_concurrent`
    /// (default 256), `deny` and `allow` (address blocks replacing `outbound.deny` and `outbound.allow` for this
    /// provider's channels); `ca_file` is common to all kinds.
    public var optionKeys: Set<String> {
        ["type", "param_template", "tile_mapping", "endpoint", "timeout", "max_concurrent", "deny", "allow"]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        var settings = MPNSProvider.Settings()
        let typeName = try options.string("type") ?? "toast"
        guard let type = MPNSNotificationType(rawValue: typeName) else {
            throw ConfigurationError(key: options.keyPath("type"), "expected toast, tile or raw, got \"\(typeName)\"")
        }
        settings.type = type
        if let param = try options.string("param_template") { settings.paramTemplate = Template(param) }
        if let mapping = try options.section("tile_mapping") {
            for key in mapping.values.keys {
                guard let property = MPNSTileProperty(mappingKey: key) else {
                    let known = MPNSTileProperty.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ConfigurationError(key: mapping.keyPath(key), "unknown tile property (known: \(known))")
                }
                guard let template = try mapping.string(key) else { continue }
                settings.tileMapping[property] = Template(template)
            }
        }
        if type == .tile && settings.tileMapping.isEmpty {
            throw ConfigurationError(key: options.keyPath("tile_mapping"), "is required for type tile")
        }
        if let endpoint = try options.string("endpoint") {
            guard let origin = ChannelOrigin(url: endpoint) else {
                throw ConfigurationError(key: options.keyPath("endpoint"), "expected an http or https URL, got \"\(endpoint)\"")
            }
            settings.endpoint = origin
        }
        settings.http = try options.providerHTTPSettings()
        let tls = try options.outboundTLS(environment: environment)
        let egress = try await options.egressGuard(environment: environment, connectTimeout: settings.http.connectTimeout)
        return MPNSProvider(name: name, settings: settings, tls: tls, egress: egress, logger: environment.logger)
    }
}
