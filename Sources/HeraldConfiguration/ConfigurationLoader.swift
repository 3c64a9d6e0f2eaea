import HeraldCore
import OrderedCollections

/// Reads Herald's configuration: the YAML file, then `HERALD_*` variables, then flags (`interface.md`).
///
/// Later sources replace earlier values key by key before anything is validated, so a
/// value overridden by a flag is never checked; unknown keys in the file are always errors.
public struct ConfigurationLoader: Sendable {
    /// The provider kinds that `providers.<name>.kind` may name, and whose option keys are accepted.
    public let kinds: ProviderKindRegistry

    /// Creates a loader that knows `kinds`.
    public init(kinds: ProviderKindRegistry) {
        self.kinds = kinds
    }

    /// Loads and validates the configuration.
    ///
    /// - Parameters:
    ///   - file: the `--config` path, or `nil` for none (every key at its default).
    ///   - environment: the process environment; only `HERALD_*` variables are read.
    ///   - overrides: the flags.
    /// - Throws: the first problem, naming the key, the flag or the file.
    public func load(
        file: String?,
        environment: [String: String],
        overrides: ConfigurationOverrides
    ) throws(ConfigurationError) -> LoadedConfiguration {
        var root: OrderedDictionary<String, ConfigValue> = [:]
        if let file {
            let text = try SecretFile.readText(file, key: "--config")
            root = try YAMLDocument.parse(text, file: file)
        }
        // Materialized before the environment is read, so `HERALD_PROVIDERS_HTTP_*` can reach the default provider.
        // Only with the `http` kind registered: an error about a provider nobody wrote would only confuse.
        switch root["providers"] {
        case nil, .null?: root["providers"] = kinds.kind(named: "http") == nil ? .map([:]) : Self.defaultProvidersValue
        default: break
        }

        let overlay = EnvironmentOverlay(kinds: kinds).apply(environment, to: &root)
        try apply(overrides, to: &root)

        let configuration: HeraldConfiguration
        do {
            configuration = try decode(root)
        } catch {
            throw Self.naming(error, sources: overlay.sources)
        }
        var warnings = overlay.warnings
        let server = configuration.server
        if !server.auth.isEmpty, server.udp != nil, server.acl[.publish] == nil {
            // pushd-api.md §2.2 rule 4: Basic auth cannot cover datagrams.
            warnings.append("UDP events are accepted from any address")
        }
        return LoadedConfiguration(configuration: configuration, warnings: warnings)
    }

    /// `providers: {http: {kind: http}}`, the default.
    private static var defaultProvidersValue: ConfigValue {
        .map(["http": .map(["kind": .scalar("http")])])
    }

    /// Checks the flags (errors name the flag) and writes them over the tree.
    private func apply(_ overrides: ConfigurationOverrides, to root: inout OrderedDictionary<String, ConfigValue>) throws(ConfigurationError) {
        if let port = overrides.port {
            guard (1...65535).contains(port) else {
                throw ConfigurationError(key: "--port", "must be between 1 and 65535, got \(port)")
            }
            _ = EnvironmentOverlay.set(.scalar(String(port)), at: ["server", "http", "port"], in: &root)
        }
        if let database = overrides.database {
            _ = try DatabaseLocation.parse(database, key: "--database")
            _ = EnvironmentOverlay.set(.scalar(database), at: ["server", "database"], in: &root)
        }
        if let level = overrides.logLevel {
            _ = try HeraldConfiguration.Log.level(level, key: "--log-level")
            _ = EnvironmentOverlay.set(.scalar(level), at: ["log", "level"], in: &root)
        }
    }

    /// Validates the merged tree into a configuration.
    private func decode(_ values: OrderedDictionary<String, ConfigValue>) throws(ConfigurationError) -> HeraldConfiguration {
        let root = ConfigSection(path: "", values: values)
        try root.rejectUnknownKeys(schema: ConfigurationSchema.root)

        var providers = OrderedDictionary<String, ProviderConfiguration>()
        for (name, section) in try root.entrySections("providers") {
            try ProviderConfiguration.validate(name: name, key: section.path)
            providers[name] = try ProviderConfiguration(section: section, kinds: kinds)
        }

        return HeraldConfiguration(
            server: try HeraldConfiguration.Server(section: root.section("server")),
            log: try HeraldConfiguration.Log(section: root.section("log")),
            eventSource: try HeraldConfiguration.EventSource(section: root.section("event_source")),
            outbound: try HeraldConfiguration.Outbound(section: root.section("outbound")),
            delivery: try HeraldConfiguration.Delivery(section: root.section("delivery")),
            providers: providers,
            compat: try HeraldConfiguration.Compat(section: root.section("compat"), providers: Set(providers.keys)),
            unifiedPush: try root.section("unifiedpush")
        )
    }

    /// Adds the variable to an error about a key the environment set, so the user knows where to look.
    private static func naming(_ error: ConfigurationError, sources: [String: String]) -> ConfigurationError {
        for (path, variable) in sources where error.key == path || error.key.hasPrefix(path + ".") {
            return ConfigurationError(key: error.key, "\(error.problem) (set by \(variable))")
        }
        return error
    }
}
