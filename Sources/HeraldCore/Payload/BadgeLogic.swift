/// rs/pushd's badge arithmetic (§7), for providers that count badges.
///
/// Stored and payload badges are text; they are read with JavaScript's
/// `parseInt` semantics so that `"5abc"` still counts as 5, as it did in rs/pushd.
public enum BadgeLogic {
    /// The largest magnitude ``parseInt(_:)`` returns: JavaScript's `Number.MAX_SAFE_INTEGER`.
    ///
    /// Longer digit strings are clamped to it rather than overflowing: beyond it
    /// JavaScript itself lost precision, and the clamp leaves room for the `+ 1`.
    public static let maximumMagnitude = 9_007_199_254_740_991

    /// `parseInt(text, 10)` as JavaScript computes it, clamped to ±``maximumMagnitude``.
    ///
    /// Leading JavaScript white space is skipped, then an optional sign, then decimal
    /// digits; anything after them is ignored. `nil` when there is no digit (`NaN`).
    public static func parseInt(_ text: String) -> Int? {
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, isJavaScriptWhitespace(first) { scalars = scalars.dropFirst() }
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var magnitude = 0
        var sawDigit = false
        for scalar in scalars {
            guard scalar.value >= 0x30, scalar.value <= 0x39 else { break }
            sawDigit = true
            if magnitude < maximumMagnitude {
                magnitude = min(magnitude * 10 + Int(scalar.value - 0x30), maximumMagnitude)
            }
        }
        guard sawDigit else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// The badge to send with one delivery, or `nil` for none (§7 steps 1–4).
    ///
    /// The base is `payloadBadge` when present and non-empty, else `storedBadge`;
    /// it is parsed with ``parseInt(_:)`` and, when `increment` is on, one is added.
    public static func badgeToSend(payloadBadge: String?, storedBadge: String?, increment: Bool) -> Int? {
        let base: String?
        if let payloadBadge, !payloadBadge.isEmpty {
            base = payloadBadge
        } else {
            base = storedBadge
        }
        guard let number = base.flatMap(parseInt) else { return nil }
        return increment ? number + 1 : number
    }

    /// The stored badge after an incrementing delivery (§7 step 5): the old stored
    /// value plus one, `"1"` when it is absent or not an integer.
    ///
    /// "Integer" means what Redis' `HINCRBY` accepted in rs/pushd: optional `-`, decimal
    /// digits, nothing else (leading zeros allowed), within ±``maximumMagnitude``.
    public static func incrementedStoredBadge(_ stored: String?) -> String {
        guard let stored, let value = storedInteger(stored), value < maximumMagnitude else { return "1" }
        return String(value + 1)
    }

    /// `stored` as a strict decimal integer, or `nil`.
    static func storedInteger(_ stored: String) -> Int? {
        var digits = Substring(stored)
        if digits.utf8.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.count <= 16,
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int(stored), abs(value) <= maximumMagnitude
        else { return nil }
        return value
    }

    /// ECMAScript's WhiteSpace and LineTerminator code points, which `parseInt` skips.
    private static func isJavaScriptWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A,
            0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            true
        default:
            false
        }
    }
}
