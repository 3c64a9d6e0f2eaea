import Foundation
import HeraldCore
import HeraldWebhook
import NIOSSL

/// The `gcm-legacy` provider kind: the legacy GCM / FCM HTTP API (providers.md §5.2), with multicast batching.
///
/// Google shut the service down, so `endpoint` is required: a proxy or gateway that still speaks the protocol.
///
/// ```yaml
/// gcm-old:
///   kind: gcm-legacy
///   endpoint: https://gcm-proxy.example/gcm/send
///   api_key_file: gcm-server-key.txt
/// ```
public struct GCMLegacyKind: ProviderKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "gcm-legacy" }

    /// `endpoint` (required), `api_key` or `api_key_file`, `timeout` (seconds per request, default 30),
    /// `max_concurrent` (default 2 × `batch_size`), `batch_size` (1–1000, default 1000), `batch_delay` (seconds a
    /// batch waits to fill, default 0.01); `ca_file` is common to all kinds.
    public var optionKeys: Set<String> {
        ["endpoint", "api_key", "api_key_file", "timeout", "max_concurrent", "batch_size", "batch_delay"]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        let endpoint = try options.requiredString("endpoint")
        guard let components = URLComponents(string: endpoint), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty
        else {
            throw ConfigurationError(key: options.keyPath("endpoint"), "expected an https URL, got \"\(endpoint)\"")
        }
        var settings = GCMLegacyProvider.Settings(endpoint: endpoint, apiKey: try options.secret("api_key", fileKey: "api_key_file"))
        if let timeout = try options.duration("timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }
        if let size = try options.int("batch_size", in: 1...GCMLegacyProvider.maximumBatchSize) { settings.batchSize = size }
        if let delay = try options.duration("batch_delay") {
            guard delay <= .seconds(10) else {
                throw ConfigurationError(key: options.keyPath("batch_delay"), "must be at most 10 seconds")
            }
            settings.batchDelay = delay
        }
        if let limit = try options.int("max_concurrent", in: 1...100_000) { settings.maxConcurrentDeliveries = limit }

        let tls = try options.outboundTLS(environment: environment)
        return GCMLegacyProvider(name: name, settings: settings, tls: tls, logger: environment.logger, clock: environment.clock)
    }

}
