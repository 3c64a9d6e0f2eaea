extension BodyValue {
    /// A whole number as JSON may write it: `978`, or `978.0` (JSON has one number type,
    /// and JSON Schema counts `978.0` as an integer); `nil` for fractions and what does not fit.
    public static func wholeNumber(_ text: String) -> Int64? {
        if let number = Int64(text) { return number }
        // Doubles are exact up to 2^53: past that a written fraction could round to a whole number.
        guard let value = Double(text), value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int64(value)
    }

    /// This value as a whole number when it is a JSON number (``wholeNumber(_:)``), else `nil`:
    /// strings, booleans and `null` are not numbers, whatever their text.
    public var wholeNumber: Int64? {
        guard case .number(let literal) = self else { return nil }
        return Self.wholeNumber(literal)
    }
}
