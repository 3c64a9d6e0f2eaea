import Foundation
import HeraldCore
import OrderedCollections

/// Hides secrets in configuration values that are printed (`herald config check`).
///
/// Keys are recognized by name, so a provider kind's own secrets (`client_secret`, `api_key`,
/// `signing_secret`, ...) are hidden without each kind declaring them; files that hold secrets
/// (`*_file`) are paths, shown as they are.
enum SecretMask {
    /// What a secret is shown as.
    static let mask = "***"

    /// Key names whose value is a secret wherever they appear.
    private static let secretNames: Set<String> = [
        "password", "api_key", "client_secret", "signing_secret", "vapid_private_key", "service_account", "secret", "token",
    ]

    /// Whether the value of `key` is a secret.
    static func isSecret(key: String) -> Bool {
        if key.hasSuffix("_file") { return false }
        return secretNames.contains(key) || key.hasSuffix("_secret") || key.hasSuffix("_password") || key.hasSuffix("_private_key")
    }

    /// `value` with every secret under it masked: values of secret keys, the password in a URL
    /// (`postgres://user:***@host/db`), and the keys of `secretKeyMaps` (suj-pusher's `api_keys` maps
    /// API keys to providers).
    static func masked(_ value: ConfigValue, key: String = "") -> ConfigValue {
        if isSecret(key: key), value != .null {
            switch value {
            case .list(let items): return .list(items.map { _ in .scalar(mask) })
            default: return .scalar(mask)
            }
        }
        switch value {
        case .scalar(let text):
            return .scalar(maskedURL(text))
        case .list(let items):
            return .list(items.map { masked($0) })
        case .map(let map):
            var result: OrderedDictionary<String, ConfigValue> = [:]
            for (index, (name, item)) in map.enumerated() {
                // The names are the secrets: each becomes a distinct mask so that none collide.
                let shown = key == "api_keys" ? "\(mask)\(index + 1)" : name
                result[shown] = masked(item, key: name)
            }
            return .map(result)
        case .null:
            return .null
        }
    }

    /// `text` with the password of a `scheme://user:password@host` URL masked; other text unchanged.
    static func maskedURL(_ text: String) -> String {
        guard text.contains("://"), text.contains("@"), var components = URLComponents(string: text), components.password != nil else {
            return text
        }
        components.password = mask
        return components.string ?? mask
    }
}
