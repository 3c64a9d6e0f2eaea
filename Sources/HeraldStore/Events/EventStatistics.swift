import HeraldCore

/// Event statistics (§14).
public struct EventStatistics: Sendable, Equatable {
    /// Unix seconds of the event's first subscription (special names: of their first publish).
    public var created: Int64
    /// Unix seconds of the last publish that reached at least one subscriber.
    public var last: Int64?
    /// Publishes that reached at least one subscriber.
    public var total: Int64
    /// Current subscriptions (`broadcast`: registered subscribers; `unicast:<id>`: 1).
    public var subscribers: Int64
    /// Deliveries the push services accepted.
    public var delivered: Int64
    /// Deliveries that ended in failure.
    public var failed: Int64

    /// Creates statistics.
    public init(created: Int64, last: Int64? = nil, total: Int64 = 0, subscribers: Int64 = 0, delivered: Int64 = 0, failed: Int64 = 0) {
        self.created = created
        self.last = last
        self.total = total
        self.subscribers = subscribers
        self.delivered = delivered
        self.failed = failed
    }
}
