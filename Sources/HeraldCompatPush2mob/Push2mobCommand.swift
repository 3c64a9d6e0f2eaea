/// A request recognized as compat.md §3.2 says: a send with its arguments, or a feedback.
enum Push2mobCommand: Equatable {
    /// `send ...`: the text after `send `, to be split by the socket's grammar.
    case send(Substring)
    /// `feedback` (anything after it is ignored).
    case feedback

    /// Recognizes a request: UTF-8, stripped of surrounding white space, `send ` (any case) or
    /// `feedback...` (any case).
    init(_ bytes: [UInt8]) throws(Push2mobRefusal) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidInput }
        let stripped = Push2mobFields.strip(text[...])
        let lowered = stripped.prefix(8).lowercased()
        if lowered.hasPrefix("send ") {
            self = .send(stripped.dropFirst(5))
        } else if lowered.hasPrefix("feedback") {
            self = .feedback
        } else {
            throw .invalidInput
        }
    }
}
