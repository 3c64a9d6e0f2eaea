/// Taking over another Herald store's pending work and logs (`herald migrate`): publish jobs,
/// queued deliveries, feedback and dead letters written with the ids they had there.
///
/// Keeping the ids is what makes a second run idempotent: a row whose id is stored is left as it
/// is, so a migration that stopped half-way can simply be run again. Each call writes a whole
/// batch in one transaction with a fixed number of statements, and moves the table's id sequence
/// past the largest id written, so rows the store makes later never reuse one. Leases are not
/// carried over: the work is free for any worker of the new store.
///
/// Subscribers, badges, subscriptions and statistics go through ``SubscriberImport``.
public protocol WorkImport: Sendable {
    /// Writes publish jobs (audience, content, origin, cursor, pending members, end) with their ids.
    /// - Returns: how many were new (the others were stored already and are left alone).
    func importPublishJobs(_ jobs: [PublishJob]) async throws -> Int

    /// Writes queued deliveries (retries and raw sends) with their ids, attempts and due times.
    /// Those whose subscriber does not exist are dropped, as ``RetryQueue/scheduleRetries(_:)`` does.
    /// - Returns: how many were new (the others were stored already, or dropped).
    func importQueuedDeliveries(_ entries: [QueuedDelivery]) async throws -> Int

    /// Writes feedback entries with their ids and whether a front-end took them.
    /// - Returns: how many were new.
    func importFeedback(_ entries: [ImportedFeedback]) async throws -> Int

    /// Writes publish receipts (scheduled publishes with their content, idempotency keys, progress
    /// and failures) with their ids; a scheduled one is released when due as any other.
    /// - Returns: how many were new.
    func importPublishes(_ records: [PublishRecord]) async throws -> Int

    /// Writes dead letters with their ids.
    /// - Returns: how many were new.
    func importDeadLetters(_ letters: [DeadLetter]) async throws -> Int

    /// How many entries the feedback log holds: `herald migrate` verifies its copy by it, since
    /// ``StoreHealth/counts()`` leaves the log out (it is not part of what the API can empty).
    func feedbackCount() async throws -> Int
}
