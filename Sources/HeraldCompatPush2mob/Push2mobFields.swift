/// Reads a send command's whitespace-separated fields one by one; what is left after the tokens is
/// the payload, spaces and all (compat.md §3.2).
struct Push2mobFields {
    private var rest: Substring

    /// Reads `arguments` (the text after `send `).
    init(_ arguments: Substring) {
        rest = arguments
    }

    /// The next field, or `nil` when none is left.
    mutating func next() -> Substring? {
        rest = rest.drop(while: Self.isSpace)
        guard !rest.isEmpty else { return nil }
        let field = rest.prefix { !Self.isSpace($0) }
        rest = rest[field.endIndex...]
        return field
    }

    /// Everything after the fields read, without leading white space (empty when nothing is left).
    var remainder: Substring { rest.drop(while: Self.isSpace) }

    /// Python's `str.split()` and `str.strip()` white space.
    static func isSpace(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { $0.properties.isWhitespace || (0x1C...0x1F).contains($0.value) }
    }

    /// `text` without leading and trailing white space.
    static func strip(_ text: Substring) -> Substring {
        let start = text.drop(while: isSpace)
        var end = start.endIndex
        while end > start.startIndex, isSpace(start[start.index(before: end)]) { end = start.index(before: end) }
        return start[..<end]
    }

    /// The count field as Python's `int()` reads it (an optional sign and ASCII digits).
    static func count(_ field: Substring) throws(Push2mobRefusal) -> Int {
        var digits = field
        var negative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { throw .notDecimal(field) }
        // Far above any real count: a larger number only means "not enough tokens follow".
        let value = Int(digits.prefix(9)) ?? 0
        let magnitude = digits.count > 9 ? Int.max / 2 : value
        return negative ? -magnitude : magnitude
    }

    /// Reads `count` tokens and the payload after them.
    ///
    /// - Throws: ``Push2mobRefusal/wrongNumberOfArguments`` when `count` is below 1 or the tokens
    ///   are not followed by a non-empty payload.
    mutating func tokensAndPayload(count: Int) throws(Push2mobRefusal) -> (tokens: [Substring], payload: Substring) {
        guard count >= 1 else { throw .wrongNumberOfArguments }
        var tokens: [Substring] = []
        while tokens.count < count {
            guard let token = next() else { throw .wrongNumberOfArguments }
            tokens.append(token)
        }
        let payload = remainder
        guard !payload.isEmpty else { throw .wrongNumberOfArguments }
        return (tokens, payload)
    }
}
