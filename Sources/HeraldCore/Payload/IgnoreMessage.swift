/// Reads the `ignore_message` subscription option (§4.12), the same way on every route.
public enum IgnoreMessage {
    /// Whether `value` makes the subscription silent; `nil` when it is not an accepted value.
    ///
    /// `1`, `true`, `"1"`, `"true"` → silent; `0`, `false`, `"0"`, `"false"`, `""`,
    /// `null` and absent → not silent. JSON numbers must be written exactly `1` or `0`
    /// (`1.0` is refused: rs/pushd's clients never sent it, and accepting it would invite
    /// `0.5`).
    public static func parse(_ value: BodyValue?) -> Bool? {
        switch value {
        case nil, .null?: false
        case .bool(let flag)?: flag
        case .number("1")?, .string("1")?, .string("true")?: true
        case .number("0")?, .string("0")?, .string("false")?, .string("")?: false
        default: nil
        }
    }

    /// The option from one entry of the bulk route's body (§4.8): an object is read for
    /// `ignore_message` (the last one given), and `null` or any other value means no options.
    public static func parse(options: BodyValue) -> Bool? {
        guard case .object = options else { return false }
        return parse(options["ignore_message"])
    }
}
