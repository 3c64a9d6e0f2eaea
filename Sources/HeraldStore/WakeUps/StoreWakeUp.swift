import HeraldCore

/// Something a node should act on at once instead of at its next poll.
public enum StoreWakeUp: Sendable, Equatable {
    /// Publish jobs were stored: fan-out workers should claim.
    case jobs
    /// Deliveries were queued (raw sends, replayed dead letters): the delivery queue should claim.
    case deliveries
    /// An event was accepted: Server-Sent Events listeners on every node get it.
    case event(PublishedEvent)
}
