/// What `herald migrate` copies, in the order it copies it; each is counted and verified on its own.
public enum StoreMigrationKind: String, Sendable, CaseIterable {
    /// Subscribers with their ids, fields, badges and failure counters.
    case subscribers
    /// Their subscriptions (copied with them).
    case subscriptions
    /// Statistics rows: events, `broadcast`, `unicast:<id>`.
    case events
    /// Publish jobs not yet fully fanned out.
    case jobs
    /// Queued deliveries: retries and raw sends not yet made.
    case deliveries
    /// The feedback log.
    case feedback
    /// Dead letters.
    case deadLetters = "dead letters"
    /// Publish receipts: scheduled publishes, idempotency keys, progress.
    case publishes
}
