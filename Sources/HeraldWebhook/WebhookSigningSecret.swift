import Crypto
import Foundation
import HeraldCore

/// One Standard Webhooks signing secret: `whsec_` followed by the base64 of the HMAC key.
///
/// Only the key is kept, and it never prints: a configuration dump or a log line cannot leak it.
public struct WebhookSigningSecret: Sendable, CustomStringConvertible {
    /// The prefix every secret carries, as the Standard Webhooks libraries write and read them.
    public static let prefix = "whsec_"

    /// The HMAC-SHA256 key (the base64 part, decoded).
    let key: SymmetricKey

    /// Reads `text`; a secret without the prefix, or whose rest is not non-empty base64, is a
    /// configuration error about `key`.
    public init(_ text: String, key keyPath: String) throws(ConfigurationError) {
        guard text.hasPrefix(Self.prefix) else {
            throw ConfigurationError(key: keyPath, "a signing secret must start with \"\(Self.prefix)\"")
        }
        guard let bytes = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))), !bytes.isEmpty else {
            throw ConfigurationError(key: keyPath, "the part after \"\(Self.prefix)\" must be non-empty base64")
        }
        self.key = SymmetricKey(data: bytes)
    }

    /// Never the secret itself.
    public var description: String { "\(Self.prefix)***" }
}
