/// Why a payload (or a request field) was refused: the exact `reason` of a 400 `{"error":"<reason>"}` (§5.2, §5.3).
public struct PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exact text answered to the client.
    public let reason: String

    /// Creates an error with an exact reason text.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason text.
    public var description: String { reason }

    /// A key that is the empty string.
    public static let emptyField = PayloadError("Invalid field (empty)")

    /// Neither title, message nor data.
    public static let emptyPayload = PayloadError("Empty payload")

    /// A value of the wrong type or form, with rs/pushd's backquote-apostrophe quoting.
    public static func invalidValue(_ key: String) -> PayloadError {
        PayloadError("Invalid value for `\(key)'")
    }

    /// A key that is not a payload key.
    public static func invalidField(_ key: String) -> PayloadError {
        PayloadError("Invalid field: \(key)")
    }

    /// A `${var.…}` or `${data.…}` placeholder naming a key the payload lacks; `placeholder` is the text between the braces.
    public static func missingVariable(_ placeholder: String) -> PayloadError {
        PayloadError("The ${\(placeholder)} does not exist")
    }

    /// A placeholder that is neither `event.name` nor `var.…` nor `data.…`; `placeholder` is the text between the braces.
    public static func invalidVariableType(_ placeholder: String) -> PayloadError {
        PayloadError("Invalid variable type for ${\(placeholder)}")
    }
}
