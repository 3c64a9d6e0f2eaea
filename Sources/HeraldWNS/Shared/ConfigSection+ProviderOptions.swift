import Foundation
import HeraldCore
import HeraldWebhook
import NIOSSL

extension ConfigSection {
    /// `timeout` (seconds for one request, default 30) and `max_concurrent` (deliveries in flight, default 256).
    func providerHTTPSettings() throws(ConfigurationError) -> ProviderHTTPSettings {
        var settings = ProviderHTTPSettings()
        if let timeout = try duration("timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }
        if let limit = try int("max_concurrent", in: 1...100_000) { settings.maxConcurrentDeliveries = limit }
        return settings
    }

    /// The client TLS configuration: system roots, `outbound.ca_file` and this provider's `ca_file`.
    func providerTLS(environment: ProviderEnvironment) throws(ConfigurationError) -> TLSConfiguration {
        var roots = environment.extraTrustRootFiles
        if let caFile = try string("ca_file") { roots.append(caFile) }
        do {
            return try OutboundTLS.clientConfiguration(extraRootFiles: roots)
        } catch {
            throw ConfigurationError(key: keyPath("ca_file"), "cannot read trust roots: \(error)")
        }
    }

    /// A secret given inline under `key` or read from the file named by `fileKey` (one trailing newline removed).
    /// Exactly one of the two must be present.
    func secret(_ key: String, fileKey: String) throws(ConfigurationError) -> String {
        let inline = try string(key)
        let file = try string(fileKey)
        switch (inline, file) {
        case (let inline?, nil):
            guard !inline.isEmpty else { throw ConfigurationError(key: keyPath(key), "is required") }
            return inline
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path), var text = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(key: keyPath(fileKey), "cannot read \(path)")
            }
            // "\r\n" is one Character, so one removeLast() drops either line ending.
            if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }
            guard !text.isEmpty else { throw ConfigurationError(key: keyPath(fileKey), "\(path) is empty") }
            return text
        case (.some, .some):
            throw ConfigurationError(key: path, "give either \(key) or \(fileKey), not both")
        case (nil, nil):
            throw ConfigurationError(key: keyPath(key), "is required (or \(fileKey))")
        }
    }
}
