import HeraldCore

/// Row counts, for health checks, metrics and tests that assert an empty store.
public struct StoreCounts: Sendable, Equatable {
    /// Registered subscribers.
    public var subscribers: Int
    /// Subscriptions.
    public var subscriptions: Int
    /// Event rows (events and statistics of special names).
    public var events: Int
    /// Publish jobs not yet completed.
    public var jobs: Int
    /// Pending retries.
    public var retries: Int
    /// Dead letters kept.
    public var deadLetters: Int

    /// Creates counts.
    public init(subscribers: Int, subscriptions: Int, events: Int, jobs: Int, retries: Int, deadLetters: Int = 0) {
        self.subscribers = subscribers
        self.subscriptions = subscriptions
        self.events = events
        self.jobs = jobs
        self.retries = retries
        self.deadLetters = deadLetters
    }
}
