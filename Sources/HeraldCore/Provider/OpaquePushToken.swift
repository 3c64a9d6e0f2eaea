/// The rule for push tokens a service issues as opaque strings (FCM registration tokens, Push Kit
/// tokens): nothing about their form is promised but that they are printable and bounded.
public enum OpaquePushToken {
    /// Whether `text` is non-empty, at most `maximumBytes` of UTF-8, without whitespace or control characters.
    public static func isValid(_ text: String, maximumBytes: Int) -> Bool {
        let count = text.utf8.count
        guard count > 0, count <= maximumBytes else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
        }
    }

    /// The token of `input` when it is one by ``isValid(_:maximumBytes:)``, kept as given.
    public static func normalized(_ input: TokenInput, maximumBytes: Int) -> NormalizedToken? {
        guard let text = input.token?.scalarText, isValid(text, maximumBytes: maximumBytes) else { return nil }
        return NormalizedToken(token: text)
    }
}
