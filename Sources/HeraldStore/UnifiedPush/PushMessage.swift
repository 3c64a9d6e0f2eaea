/// A UnifiedPush message: what an app server posted to a topic, kept until it expires.
public struct PushMessage: Sendable, Equatable {
    /// The message's id, assigned by the caller (an opaque string, unique across all topics): the
    /// id distributors see and may resume after (``PushCursor/afterID(_:)``).
    public var id: String
    /// The message's place in the store, assigned on insert and strictly increasing across every
    /// topic, so that readers resume after it (``PushCursor/afterSequence(_:)``); 0 while the
    /// message is not stored. ``UnifiedPushStore/storeMessage(_:)`` ignores it.
    public var sequence: Int64
    /// The topic it was posted to.
    public var topic: String
    /// When it was accepted (Unix seconds).
    public var time: Int64
    /// When it expires (Unix seconds): from then on it is neither returned nor kept.
    public var expiresAt: Int64
    /// The body, bytes as sent: Web Push bodies are encrypted, so any byte may occur.
    public var body: [UInt8]
    /// The RFC 8030 `Urgency` header (`very-low` … `high`), when one was sent.
    public var urgency: String?
    /// The RFC 8030 `Topic` header, when one was sent: a later message of the same topic with the
    /// same key replaces this one while it has not expired.
    public var replaceKey: String?

    /// Creates a message; `sequence` stays 0 until the store assigns one.
    public init(
        id: String, sequence: Int64 = 0, topic: String, time: Int64, expiresAt: Int64, body: [UInt8], urgency: String? = nil,
        replaceKey: String? = nil
    ) {
        self.id = id
        self.sequence = sequence
        self.topic = topic
        self.time = time
        self.expiresAt = expiresAt
        self.body = body
        self.urgency = urgency
        self.replaceKey = replaceKey
    }
}
