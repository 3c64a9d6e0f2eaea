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

    /// Byte-wise order of the ids' UTF-8, the order of the stores' indexes (`COLLATE "C"`).
    public static func < (lhs: SubscriberID, rhs: SubscriberID) -> Bool {
        // Every settled outcome compares ids (a fan-out's progress is kept in id order). The
        // generic `lexicographicallyPrecedes` over two UTF-8 views stepped an iterator per byte
        // and showed in profiles; the contiguous bytes compare in a plain loop.
        var left = lhs.rawValue
        var right = rhs.rawValue
        return left.withUTF8 { a in
            right.withUTF8 { b in
                for index in 0..<min(a.count, b.count) where a[index] != b[index] {
                    return a[index] < b[index]
                }
                return a.count < b.count
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
