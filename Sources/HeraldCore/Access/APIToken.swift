/// An API token as stored: its name, what it may do and when it was made, used and expires. The
/// secret itself is never kept, only its digest (``TokenDigest``).
public struct APIToken: Sendable, Equatable {
    /// The operator's name for it, unique: what `herald tokens revoke` and `DELETE /tokens/<name>` take.
    public var name: String
    /// What it may do.
    public var scopes: TokenScopes
    /// When it was created (Unix seconds).
    public var createdAt: Int64
    /// When it stops working (Unix seconds); `nil`: never.
    public var expiresAt: Int64?
    /// When it was last used, as last recorded (Unix seconds; recorded at most every few seconds).
    public var lastUsedAt: Int64?

    /// Creates a token record.
    public init(name: String, scopes: TokenScopes, createdAt: Int64, expiresAt: Int64? = nil, lastUsedAt: Int64? = nil) {
        self.name = name
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }

    /// Whether it has expired at `now` (Unix seconds).
    public func isExpired(at now: Int64) -> Bool {
        if let expiresAt { expiresAt <= now } else { false }
    }

    /// Longest name taken.
    public static let maxNameLength = 64

    /// Whether `name` can name a token: 1 to 64 letters, digits, `-`, `_` and `.` (it goes in a URL path).
    public static func isValidName(_ name: String) -> Bool {
        (1...maxNameLength).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }
}

extension APIToken {
    /// The longest lifetime a token may be given: ten years.
    public static let maxLifetimeSeconds: Int64 = 10 * 366 * 86_400

    /// A lifetime as the CLI and `POST /tokens` take it: a whole number of seconds, or with a unit,
    /// `s`, `m`, `h` or `d` (`90d`); `nil` for anything else, zero, or more than ten years.
    public static func lifetime(_ text: String) -> Duration? {
        var digits = Substring(text)
        var unit: Int64 = 1
        switch digits.last {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3_600
        case "d": unit = 86_400
        default: break
        }
        if digits.last.map({ !$0.isNumber }) ?? false { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int64(digits),
            count > 0, count <= maxLifetimeSeconds / unit
        else { return nil }
        return .seconds(count * unit)
    }
}
