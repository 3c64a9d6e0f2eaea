/// Why a JSON text was rejected, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset in the input at which the problem was found.
    public let offset: Int
    /// What is wrong, in a few words (`unexpected end of input`, `lone surrogate`, ...).
    public let message: String

    /// Creates an error at `offset`.
    public init(offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message and the offset, for logs.
    public var description: String { "\(message) at byte \(offset)" }
}
