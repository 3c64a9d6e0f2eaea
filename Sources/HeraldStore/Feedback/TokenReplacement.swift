import HeraldCore

/// A token a push service said to use instead of the stored one.
public struct TokenReplacement: Sendable, Equatable {
    /// The subscriber.
    public var subscriberID: SubscriberID
    /// Its provider name.
    public var proto: String
    /// The token the delivery went to.
    public var oldToken: String
    /// The normalized token to store.
    public var newToken: String
    /// The new token's identity (see ``NormalizedToken``).
    public var identity: String
    /// The front-end the delivery that brought it came through.
    public var origin: DeliveryOrigin

    /// Creates a replacement.
    public init(subscriberID: SubscriberID, proto: String, oldToken: String, newToken: String, identity: String, origin: DeliveryOrigin = .pushd) {
        self.origin = origin
        self.subscriberID = subscriberID
        self.proto = proto
        self.oldToken = oldToken
        self.newToken = newToken
        self.identity = identity
    }
}
