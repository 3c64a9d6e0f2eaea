import HeraldConfiguration
import HeraldCore

/// A provider kind that declares option keys and builds nothing: the loader only reads `optionKeys`.
struct TestKind: ProviderKind {
    let name: String
    let optionKeys: Set<String>

    func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) throws -> any PushProvider {
        // Configuration tests never build providers.
        throw ConfigurationError(key: "providers.\(name)", "test kinds build nothing")
    }

    /// The kinds of `interface.md`, with the options it and `pushd-api.md` §10 name.
    static let registry = ProviderKindRegistry([
        TestKind(name: "apns", optionKeys: [
            "environment", "endpoint", "topic", "team_id", "key_id", "key_file", "cert_file", "cert_key_file",
            "payload_filter", "category", "content_available", "alert_title",
        ]),
        TestKind(name: "fcm", optionKeys: ["service_account_file", "endpoint", "token_endpoint"]),
        TestKind(name: "webpush", optionKeys: ["vapid_subject", "vapid_private_key_file"]),
        TestKind(name: "wns", optionKeys: ["type", "client_id", "client_secret", "endpoint", "token_endpoint", "launch_template"]),
        TestKind(name: "mpns", optionKeys: ["type", "param_template", "tile_mapping"]),
        TestKind(name: "http", optionKeys: []),
    ])
}
