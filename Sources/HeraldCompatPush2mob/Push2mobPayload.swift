import HeraldCore

/// The payload at the end of a send command: at most 4096 bytes of a JSON object (compat.md §3.3
/// checks 8 and 9, §3.4 likewise).
enum Push2mobPayload {
    /// Today's APNs limit (push2mob's was 256 bytes).
    static let maxBytes = 4096

    /// The payload's members, checked.
    static func object(_ payload: Substring) throws(Push2mobRefusal) -> [(key: String, value: BodyValue)] {
        let size = payload.utf8.count
        guard size <= maxBytes else { throw .payloadTooLong(size) }
        guard case .object(let members)? = try? JSONBodyParser.parse(String(payload)) else { throw .invalidJSON(payload) }
        return members
    }
}
