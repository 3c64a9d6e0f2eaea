import HeraldConfiguration
import HeraldCore

/// `compat.push2mob`, read (compat.md §3.1).
struct Push2mobSettings: Sendable, Equatable {
    /// The `apns` provider the APNs socket sends through; `nil`: that socket is off.
    var apnsProvider: String?
    /// The `fcm` or `gcm-legacy` provider the GCM socket sends through; `nil`: that socket is off.
    var gcmProvider: String?
    /// Where the APNs socket binds.
    var apnsBind: String
    /// Where the GCM socket binds.
    var gcmBind: String
    /// How APNs tokens are printed in feedback.
    var tokenFormat: Push2mobTokenFormat

    /// push2mob's sample endpoints.
    static let defaultAPNsBind = "tcp://127.0.0.1:12195"
    static let defaultGCMBind = "tcp://127.0.0.1:12196"
    /// The provider kinds each socket can send through.
    static let apnsKinds: Set<String> = ["apns"]
    static let gcmKinds: Set<String> = ["fcm", "gcm-legacy"]

    /// Reads the section; `kind` gives a configured provider's kind (`nil`: no such provider).
    init(section: ConfigSection, kind: (String) -> String?) throws(ConfigurationError) {
        func provider(_ key: String, kinds: Set<String>) throws(ConfigurationError) -> String? {
            guard let name = try section.string(key)?.trimmingWhitespace(), !name.isEmpty else { return nil }
            guard let found = kind(name) else { throw ConfigurationError(key: section.keyPath(key), "no provider named \"\(name)\"") }
            guard kinds.contains(found) else {
                throw ConfigurationError(
                    key: section.keyPath(key), "provider \"\(name)\" is of kind \(found); expected \(kinds.sorted().joined(separator: " or "))")
            }
            return name
        }
        apnsProvider = try provider("apns_provider", kinds: Self.apnsKinds)
        gcmProvider = try provider("gcm_provider", kinds: Self.gcmKinds)
        apnsBind = try section.string("apns_bind")?.trimmingWhitespace() ?? Self.defaultAPNsBind
        gcmBind = try section.string("gcm_bind")?.trimmingWhitespace() ?? Self.defaultGCMBind
        let format = try section.string("device_token_format")?.trimmingWhitespace() ?? Push2mobTokenFormat.base64.rawValue
        guard let tokenFormat = Push2mobTokenFormat(rawValue: format) else {
            throw ConfigurationError(key: section.keyPath("device_token_format"), "expected hex or base64, got \"\(format)\"")
        }
        self.tokenFormat = tokenFormat
    }
}
