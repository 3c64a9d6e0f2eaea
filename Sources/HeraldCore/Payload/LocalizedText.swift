import Collections
import OrderedCollections

/// A text in several languages: `default` for the plain key, then `fr`, `fr_CA`, ...
///
/// Keys keep the order in which the payload first named them, as rs/pushd's
/// JavaScript objects did, so webhook and SSE bodies list them the same way.
public struct LocalizedText: Sendable, Equatable, Hashable, Codable {
    /// Language → compiled text.
    public var translations: OrderedDictionary<String, String>

    /// Creates a text from its translations.
    public init(_ translations: OrderedDictionary<String, String> = [:]) {
        self.translations = translations
    }

    /// Whether there is no translation at all.
    public var isEmpty: Bool { translations.isEmpty }

    /// The text for a subscriber whose language is `lang` (§5.5).
    ///
    /// Exact match; then, for `xx_YY`, the two-letter `xx`; then a non-empty `default`; else `nil`.
    public func resolve(lang: String?) -> String? {
        if let lang {
            if let exact = translations[lang] { return exact }
            if Self.isRegionalCode(lang), let language = translations[String(lang.prefix(2))] {
                return language
            }
        }
        if let fallback = translations["default"], !fallback.isEmpty { return fallback }
        return nil
    }

    /// Whether `lang` matches `^[a-z]{2}_[A-Z]{2}$`.
    static func isRegionalCode(_ lang: String) -> Bool {
        let bytes = Array(lang.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: "_") else { return false }
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z")
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        return lower.contains(bytes[0]) && lower.contains(bytes[1]) && upper.contains(bytes[3]) && upper.contains(bytes[4])
    }
}
