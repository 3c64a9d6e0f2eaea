/// A subscriber's identifier: 11 characters of `[A-Za-z0-9_-]`.
///
/// Ids arriving in URLs are not validated (an unknown id is simply not found), so
/// any string can be wrapped; ``random()`` makes new ones as rs/pushd did.
public struct SubscriberID: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The id's text.
    public let rawValue: String

    /// Wraps an id as received; no validation.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Draws a new id: 8 random bytes from the system's secure generator, base64url without padding.
    public static func random() -> SubscriberID {
        // One 64-bit draw (one `getrandom` call) rather than one per byte: eight system calls
        // per registration showed in profiles. Little-endian bytes of a uniform word are uniform.
        var generator = SystemRandomNumberGenerator()
        let word = generator.next() as UInt64
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        return SubscriberID(rawValue: Base64URL.encode(bytes))
    }

    public var description: String { rawValue }

    public static func < (lhs: SubscriberID, rhs: SubscriberID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
