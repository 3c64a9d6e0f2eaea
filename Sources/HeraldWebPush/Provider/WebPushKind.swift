import Foundation
import HeraldCore
import HeraldWebhook
import NIOSSL

/// The `webpush` provider kind: Web Push (RFC 8030) with message encryption (RFC 8291) and VAPID (RFC 8292).
///
/// ```yaml
/// providers:
///   webpush:
///     kind: webpush
///     vapid_subject: mailto:ops@example.com
///     vapid_private_key_file: vapid.pem
/// ```
public struct WebPushKind: ProviderKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "webpush" }

    /// - `vapid_subject` (required): the operator's contact, a `mailto:` address or an `https:` URL;
    /// - `vapid_private_key_file` (a PEM P-256 key, as `herald vapid generate` writes) or `vapid_private_key` (the
    ///   PEM text, or the base64url 32-byte private scalar): exactly one is required;
    /// - `ca_file`: an extra trust root for the push services' TLS;
    /// - `ttl`: `TTL` in seconds for events without `ttl`/`expiration` (default 86400, one day);
    /// - `timeout`: seconds for a whole request (default 30); `connect_timeout`: seconds to connect (default 10);
    /// - `max_concurrent`: deliveries in flight (default 256); `max_connections_per_host` (default 64);
    /// - `deny`, `allow`: address blocks replacing `outbound.deny` and `outbound.allow` for this provider's endpoints.
    public var optionKeys: Set<String> {
        [
            "vapid_subject", "vapid_private_key_file", "vapid_private_key", "ca_file", "ttl",
            "timeout", "connect_timeout", "max_concurrent", "max_connections_per_host", "deny", "allow",
        ]
    }

    public func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider {
        let subject = try options.requiredString("vapid_subject")
        guard Self.isContact(subject) else {
            throw ConfigurationError(
                key: options.keyPath("vapid_subject"), "expected a mailto: address or an https: URL, got \"\(subject)\"")
        }
        let key = try Self.readKey(options)

        var settings = WebPushProvider.Settings(subject: subject)
        if let ttl = try options.int("ttl", in: 0...WebPushRenderer.maximumTTL) { settings.defaultTTL = ttl }
        if let timeout = try options.duration("timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }
        if let timeout = try options.duration("connect_timeout", minimum: .milliseconds(1)) { settings.connectTimeout = timeout }
        if let limit = try options.int("max_concurrent", in: 1...100_000) { settings.maxConcurrentDeliveries = limit }
        if let limit = try options.int("max_connections_per_host", in: 1...10_000) { settings.maxConnectionsPerHost = limit }

        let tls = try options.outboundTLS(environment: environment)
        let egress = try await options.egressGuard(environment: environment, connectTimeout: settings.connectTimeout)
        do {
            return try await WebPushProvider(
                name: name, settings: settings, key: key, tls: tls, egress: egress, logger: environment.logger, clock: environment.clock)
        } catch {
            await egress?.close()
            throw error
        }
    }

    /// The key from `vapid_private_key_file` or `vapid_private_key` (exactly one of them).
    static func readKey(_ options: ConfigSection) throws -> VAPIDKey {
        switch (options.contains("vapid_private_key_file"), options.contains("vapid_private_key")) {
        case (true, false):
            let path = try options.requiredString("vapid_private_key_file")
            do {
                return try VAPIDKey(contentsOfFile: path)
            } catch {
                throw ConfigurationError(key: options.keyPath("vapid_private_key_file"), error.description)
            }
        case (false, true):
            do {
                return try VAPIDKey(text: try options.requiredString("vapid_private_key"))
            } catch let error as VAPIDKeyError {
                // The value itself is a secret: the message names the key, never the text.
                throw ConfigurationError(key: options.keyPath("vapid_private_key"), error.description)
            }
        case (true, true):
            throw ConfigurationError(key: options.path, "give either vapid_private_key_file or vapid_private_key, not both")
        case (false, false):
            throw ConfigurationError(key: options.keyPath("vapid_private_key_file"), "is required (or vapid_private_key)")
        }
    }

    /// Whether `subject` is a `mailto:` address with an `@`, or an `https:` URL with a host (RFC 8292 §2.1).
    static func isContact(_ subject: String) -> Bool {
        if subject.hasPrefix("mailto:") {
            let address = subject.dropFirst("mailto:".count)
            guard let at = address.firstIndex(of: "@") else { return false }
            return at != address.startIndex && address.index(after: at) != address.endIndex
                && !address.contains(where: { $0 == " " || $0 == "<" || $0 == ">" })
        }
        guard subject.hasPrefix("https:"), let components = URLComponents(string: subject), let host = components.host else {
            return false
        }
        return !host.isEmpty
    }
}
