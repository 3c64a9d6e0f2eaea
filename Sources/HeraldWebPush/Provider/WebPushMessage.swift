/// A notification rendered for Web Push: the plaintext every subscriber of one variant gets (each encrypted for its
/// own keys) and the headers that go with it.
public struct WebPushMessage: Sendable, Equatable {
    /// The JSON a service worker reads: `{"event":…,"title":…,"message":…,"data":{…}}`.
    public var plaintext: [UInt8]
    /// The `TTL` header: seconds the push service may keep the message.
    public var ttl: Int
    /// The `Urgency` header.
    public var urgency: WebPushUrgency
    /// The `Topic` header, when the notification has a collapse key.
    public var topic: String?

    /// Creates a message.
    public init(plaintext: [UInt8], ttl: Int, urgency: WebPushUrgency, topic: String? = nil) {
        self.plaintext = plaintext
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }

    /// The plaintext as text.
    public var plaintextString: String { String(decoding: plaintext, as: UTF8.self) }
}
