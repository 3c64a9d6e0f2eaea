import HeraldCore

/// The `payload` object of a request (compat.md §4.2): only `aps` and `customValues` are read.
struct ApnsMSPayloadFields: Sendable {
    /// The known fields.
    static let fields = ["aps", "customValues"]
    /// The Go type a non-object `payload` is reported against.
    static let goType = "apns.Payload"
    /// The Go type a non-object `customValues` is reported against.
    static let customValuesGoType = "map[string]interface {}"

    /// The `aps` fields read.
    var aps = ApnsMSAPSFields()
    /// The custom values in body order, duplicates kept (the last wins when written); `nil`:
    /// absent or `null`.
    var customValues: [(key: String, value: BodyValue)]?

    /// Decodes the members of a `payload` object over what is already there.
    mutating func decode(_ members: [(key: String, value: BodyValue)], with decoder: inout GoDecoder) {
        for (key, value) in members {
            switch GoDecoder.field(key, in: Self.fields) {
            case "aps":
                if let members = decoder.members(value, type: ApnsMSAPSFields.goType) { aps.decode(members, with: &decoder) }
            case "customValues":
                if case .null = value {
                    customValues = nil
                } else if let members = decoder.members(value, type: Self.customValuesGoType) {
                    for member in members { decoder.checkInterface(member.value) }
                    // A Go map that exists already is added to, not replaced.
                    customValues = (customValues ?? []) + members
                }
            default:
                break
            }
        }
    }
}
