/// A UnifiedPush topic as the store holds it: the name app servers post to and distributors
/// subscribe to.
public struct PushTopic: Sendable, Equatable {
    /// The topic's name, as given by the distributor (an opaque string).
    public var name: String
    /// The VAPID application server key (base64url) the topic is bound to, or `nil` while it is
    /// bound to none. Once set it is kept: a post must then be signed by that key, and a later
    /// subscription cannot move the topic to another server's key.
    public var vapidKey: String?
    /// When a subscriber last subscribed or was connected (Unix seconds): a topic idle long enough
    /// and without messages is pruned.
    public var lastSubscribed: Int64
    /// When the topic was first subscribed (Unix seconds).
    public var created: Int64

    /// Creates a topic.
    public init(name: String, vapidKey: String? = nil, lastSubscribed: Int64, created: Int64) {
        self.name = name
        self.vapidKey = vapidKey
        self.lastSubscribed = lastSubscribed
        self.created = created
    }
}
