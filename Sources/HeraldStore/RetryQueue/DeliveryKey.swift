/// A key under which deliveries are queued at most once while it lives: a sender that repeats a
/// request (a Matrix homeserver retrying a notification that timed out) queues nothing twice.
public struct DeliveryKey: Sendable, Hashable {
    /// The key; the caller makes it unique to what it must not queue twice (and short: a digest).
    public var value: String
    /// When it is forgotten (Unix seconds): a repeat from then on is queued again.
    public var expiresAt: Int64

    /// Creates a key.
    public init(_ value: String, expiresAt: Int64) {
        self.value = value
        self.expiresAt = expiresAt
    }
}
