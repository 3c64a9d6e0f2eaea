import HeraldCore
import NIOCore

/// A notification rendered for Huawei Push Kit once per variant: the `message` object without its token list.
///
/// The send body is `{"validate_only":false,"message":{"token":[…],<members>}}`; a batch of tokens shares one
/// rendered message, so the provider groups deliveries by message (equal texts, whoever rendered them) and
/// writes the JSON around each batch's tokens.
public struct HMSMessage: Sendable, Hashable {
    /// The `message` object's members after `token`, as JSON text without braces
    /// (`"data":"{…}","android":{…}`); empty for a message with nothing but its tokens.
    public let members: String
    /// Whether Push Kit only validates the message (`validate_only`) instead of sending it.
    public let validateOnly: Bool
    /// A hash of the text computed once, so that grouping thousands of deliveries by message does not hash the
    /// whole text again for each.
    private let fingerprint: Int

    /// Creates a message from the members that follow the token list.
    public init(members: String, validateOnly: Bool = false) {
        self.members = members
        self.validateOnly = validateOnly
        var hasher = Hasher()
        hasher.combine(members)
        hasher.combine(validateOnly)
        self.fingerprint = hasher.finalize()
    }

    /// The size Push Kit's 4096-byte limit applies to: the `message` object without its `token` list,
    /// braces included.
    public var messageBytes: Int {
        members.utf8.count + 2
    }

    /// The complete `messages:send` body for `tokens`.
    public func body(tokens: [String]) -> ByteBuffer {
        var writer = JSONWriter(capacity: 64 + members.utf8.count + tokens.reduce(0) { $0 + $1.utf8.count + 3 })
        writer.beginObject()
        writer.key("validate_only")
        writer.bool(validateOnly)
        writer.key("message")
        writer.beginObject()
        writer.key("token")
        writer.beginArray()
        for token in tokens {
            writer.string(token)
        }
        writer.endArray()
        if !members.isEmpty {
            // The members are already JSON; `raw` puts the comma before them.
            writer.raw(members)
        }
        writer.endObject()
        writer.endObject()
        return ByteBuffer(bytes: writer.bytes)
    }

    /// The body for `tokens` as text, for logs and tests.
    public func text(tokens: [String]) -> String {
        String(buffer: body(tokens: tokens))
    }

    public static func == (lhs: HMSMessage, rhs: HMSMessage) -> Bool {
        lhs.fingerprint == rhs.fingerprint && lhs.validateOnly == rhs.validateOnly && lhs.members == rhs.members
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fingerprint)
    }
}
