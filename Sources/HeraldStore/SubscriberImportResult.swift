import HeraldCore

/// What ``SubscriberImport/importSubscribers(_:)`` did with a batch.
public struct SubscriberImportResult: Sendable, Equatable {
    /// Subscribers whose id was new.
    public var inserted: Int
    /// Subscribers whose id was stored, now updated.
    public var updated: Int
    /// Subscribers left alone because another id holds their `(proto, identity)`.
    public var conflicts: [SubscriberID]
    /// Subscriptions of the written subscribers (whether new, changed or as they were).
    public var subscriptions: Int

    /// Creates a result.
    public init(inserted: Int = 0, updated: Int = 0, conflicts: [SubscriberID] = [], subscriptions: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.conflicts = conflicts
        self.subscriptions = subscriptions
    }
}
