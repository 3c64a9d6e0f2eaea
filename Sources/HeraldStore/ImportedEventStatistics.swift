import HeraldCore

/// The publish statistics another push server kept for an event (``SubscriberImport/importEventStatistics(_:)``).
public struct ImportedEventStatistics: Sendable, Equatable {
    /// The event (possibly `broadcast` or `unicast:<id>`).
    public var event: EventName
    /// Unix seconds of its first subscription (special names: of their first publish).
    public var created: Int64
    /// Publishes counted.
    public var total: Int64
    /// Unix seconds of the last publish, if any.
    public var last: Int64?
    /// Deliveries the push services accepted; `nil` keeps the stored count (another server's import).
    public var delivered: Int64?
    /// Deliveries that ended in failure; `nil` keeps the stored count.
    public var failed: Int64?

    /// Creates statistics.
    public init(event: EventName, created: Int64, total: Int64 = 0, last: Int64? = nil, delivered: Int64? = nil, failed: Int64? = nil) {
        self.delivered = delivered
        self.failed = failed
        self.event = event
        self.created = created
        self.total = total
        self.last = last
    }
}
