import AsyncHTTPClient
import HeraldCore
import NIOCore
import NIOSSL

/// The `http` provider kind: each subscriber's token is a URL that receives a JSON POST per notification.
public struct WebhookKind: ProviderKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "http" }

    /// `connect_timeout` (seconds, default 10), `timeout` (seconds for the whole request, default 30),
    /// `max_concurrent` (deliveries in flight, default 256), `max_connections_per_host` (default 64),
    /// `deny` and `allow` (address blocks replacing `outbound.deny` and `outbound.allow` for this provider),
    /// `signing_secret` or `signing_secret_file` (Standard Webhooks `whsec_` secrets: requests are signed).
    public var optionKeys: Set<String> {
        ["connect_timeout", "timeout", "max_concurrent", "max_connections_per_host", "deny", "allow", "signing_secret", "signing_secret_file"]
    }

    /// Reads the signing secrets, so a malformed one stops start-up with its key named.
    public func validate(options: ConfigSection) throws(ConfigurationError) {
        _ = try options.webhookSigner()
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        var settings = WebhookProvider.Settings()
        if let seconds = try options.seconds("connect_timeout") { settings.connectTimeout = .milliseconds(Int64(seconds * 1000)) }
        if let seconds = try options.seconds("timeout") { settings.requestTimeout = .milliseconds(Int64(seconds * 1000)) }
        if let limit = try options.int("max_concurrent", in: 1...100_000) { settings.maxConcurrentDeliveries = limit }
        if let limit = try options.int("max_connections_per_host", in: 1...10_000) { settings.maxConnectionsPerHost = limit }
        let tls = try options.outboundTLS(environment: environment)
        let egress = try await options.egressGuard(environment: environment, connectTimeout: settings.connectTimeout)
        let signer = try options.webhookSigner()
        if let signer {
            environment.logger.info("webhook requests are signed", metadata: ["provider": "\(name)", "secrets": "\(signer.secretCount)"])
        }
        return WebhookProvider(
            name: name, settings: settings, tls: tls, egress: egress, signer: signer, logger: environment.logger, clock: environment.clock)
    }
}
