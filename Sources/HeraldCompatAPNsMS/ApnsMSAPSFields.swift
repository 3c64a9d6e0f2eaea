import HeraldCore

/// The `aps` object of a request (compat.md §4.2): only `alert`, `badge`, `sound`,
/// `content-available` and `category` are read.
struct ApnsMSAPSFields: Sendable {
    /// The known fields.
    static let fields = ["alert", "badge", "sound", "content-available", "category"]
    /// The Go type a non-object `aps` is reported against.
    static let goType = "apns.APS"

    /// Any JSON value (an `interface{}`); checked after decoding (§4.3 check 3). `nil`: absent or `null`.
    var alert: BodyValue?
    /// `nil`: absent or `null`; 0 is kept (Herald sends `badge: 0`, which clears the badge).
    var badge: Int64?
    var sound = ""
    var contentAvailable: Int64 = 0
    var category = ""

    /// Decodes the members of an `aps` object over what is already there.
    mutating func decode(_ members: [(key: String, value: BodyValue)], with decoder: inout GoDecoder) {
        for (key, value) in members {
            switch GoDecoder.field(key, in: Self.fields) {
            case "alert":
                decoder.checkInterface(value)
                if case .null = value { alert = nil } else { alert = value }
            case "badge": decoder.int(value, into: &badge)
            case "sound": decoder.string(value, into: &sound)
            case "content-available": decoder.int(value, into: &contentAvailable)
            case "category": decoder.string(value, into: &category)
            default: break
            }
        }
    }
}
