extension ConfigSection {
    /// One of a fixed set of words, read as the raw value of `Choice` (case-insensitive), or `nil` when absent.
    ///
    /// - Throws: ``ConfigurationError`` naming the key and every accepted word when the value is another.
    public func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, as type: Choice.Type = Choice.self
    ) throws(ConfigurationError) -> Choice? where Choice.RawValue == String {
        guard let text = try string(key) else { return nil }
        if let choice = Choice(rawValue: text.trimmingWhitespace().lowercased()) {
            return choice
        }
        let words = Choice.allCases.map(\.rawValue)
        let expected = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : words.joined()
        throw ConfigurationError(key: keyPath(key), "expected \(expected), got \"\(text)\"")
    }
}
