import HeraldCore

/// A `POST /notification` body as apns-ms's Go structs held it after decoding (compat.md §4.2),
/// before the checks of §4.3 that follow decoding.
struct ApnsMSNotification: Sendable {
    /// The known top-level fields.
    static let fields = ["deviceToken", "payload", "identifier", "expires", "priority"]
    /// The Go type a top-level value other than an object is reported against.
    static let goType = "apns.Notification"

    /// Hex, as given (absent: empty).
    var deviceToken = ""
    /// `nil`: absent or `null`.
    var payload: ApnsMSPayloadFields?
    /// Hex, as given (absent: empty).
    var identifier = ""
    /// `nil`: absent or `null`.
    var expires: RFC3339Time?
    /// 0: absent (the push type's default priority).
    var priority: UInt8 = 0

    /// An empty notification (Go's zero value).
    init() {}

    /// Decodes the body's first JSON value; throws the decoder's message (§4.3 check 2).
    init(decoding value: BodyValue) throws(GoJSONError) {
        var decoder = GoDecoder()
        switch value {
        case .null:
            break
        case .object(let members):
            for (key, value) in members {
                switch GoDecoder.field(key, in: Self.fields) {
                case "deviceToken": decoder.string(value, into: &deviceToken)
                case "payload":
                    if case .null = value {
                        payload = nil
                    } else if let members = decoder.members(value, type: ApnsMSPayloadFields.goType) {
                        // A pointer that is already set is decoded into again: a repeated `payload` merges.
                        var fields = payload ?? ApnsMSPayloadFields()
                        fields.decode(members, with: &decoder)
                        payload = fields
                    }
                case "identifier": decoder.string(value, into: &identifier)
                case "expires":
                    switch value {
                    case .null: expires = nil
                    // time.Time's own decoding fails at once, unlike a type mismatch.
                    case .string(let text): expires = try RFC3339Time(parsing: text)
                    default: throw .time("Time.UnmarshalJSON: input is not a JSON string")
                    }
                case "priority": decoder.uint8(value, into: &priority)
                default: break
                }
            }
        default:
            decoder.save(.cannotUnmarshal(GoDecoder.kind(value), into: Self.goType))
        }
        if let error = decoder.savedError { throw error }
    }
}
