import HeraldCore

/// A subscriber and the badge the caller believes is stored for it.
public struct BadgeExpectation: Sendable, Equatable {
    /// The subscriber.
    public var id: SubscriberID
    /// The stored badge as the caller read it (`nil`: none).
    public var storedBadge: String?

    /// Creates an expectation.
    public init(id: SubscriberID, storedBadge: String?) {
        self.id = id
        self.storedBadge = storedBadge
    }
}
