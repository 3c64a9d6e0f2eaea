import Crypto
import HeraldCore

/// The RFC 8030 §5.4 `Topic` header made from a notification's `collapseKey`.
///
/// A topic must be 1 to 32 characters of the base64url alphabet. A collapse key that already is one is sent as it
/// is; any other (longer, or with other characters) becomes the first 32 characters of the base64url SHA-256 of its
/// UTF-8 bytes, so equal keys still replace each other and different keys practically never collide.
public enum WebPushTopic {
    /// The most characters a topic may have.
    public static let maximumLength = 32

    /// The topic for `collapseKey`; `nil` when there is no key (or it is empty).
    public static func make(collapseKey: String?) -> String? {
        guard let collapseKey, !collapseKey.isEmpty else { return nil }
        if isValid(collapseKey) { return collapseKey }
        let digest = SHA256.hash(data: Array(collapseKey.utf8))
        return String(Base64URL.encode(digest).prefix(maximumLength))
    }

    /// Whether `text` matches `^[A-Za-z0-9_-]{1,32}$`.
    public static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
