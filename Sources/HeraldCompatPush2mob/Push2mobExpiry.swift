/// An `expiry` field (compat.md §3.3, §3.4): absolute Unix seconds, or `+N`, N seconds from now.
enum Push2mobExpiry {
    /// The furthest a GCM expiry may be (four weeks, GCM's longest time to live).
    static let maxGCMSeconds: Int64 = 2_419_200

    /// The absolute expiry (Unix seconds) `field` names at `now`.
    ///
    /// - Throws: ``Push2mobRefusal/invalidExpiry(_:)`` unless it matches `^\+?[+-]?[0-9]+$`.
    static func absolute(_ field: Substring, now: Int64) throws(Push2mobRefusal) -> Int64 {
        var rest = field
        let relative = rest.first == "+"
        if relative { rest = rest.dropFirst() }
        var negative = false
        if let sign = rest.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { throw .invalidExpiry(field) }
        // Python's integers have no bound; beyond Int64 the clamp keeps the meaning (far future or past).
        let magnitude = Int64(rest) ?? Int64.max / 4
        let value = min(magnitude, Int64.max / 4)
        let signed = negative ? -value : value
        return relative ? now + signed : signed
    }
}
