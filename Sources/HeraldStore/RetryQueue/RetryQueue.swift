import HeraldCore

/// The delivery queue: retries, and raw sends waiting for their first attempt, persisted so
/// that a restart resumes them.
public protocol RetryQueue: Sendable {
    /// Stores deliveries (ids are assigned), in one transaction. Entries whose subscriber no
    /// longer exists are dropped: a retry never outlives its subscriber (§4.5). Raw-token
    /// entries are always stored.
    func scheduleRetries(_ entries: [QueuedDelivery]) async throws

    /// Stores deliveries as ``scheduleRetries(_:)`` does, in one transaction with `key`, unless a
    /// key of the same value that lives at `now` is stored already: then nothing is stored. Two
    /// nodes storing the same key at once store the deliveries once.
    /// - Returns: whether the deliveries were stored (`false`: a repeat).
    func scheduleRetries(_ entries: [QueuedDelivery], once key: DeliveryKey, now: Int64) async throws -> Bool

    /// Forgets the delivery keys expired at `now` (Unix seconds).
    /// - Returns: how many were forgotten.
    func pruneDeliveryKeys(now: Int64) async throws -> Int

    /// Claims up to `limit` deliveries due at `nowMillis` that nobody holds, earliest first.
    func claimDueRetries(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [QueuedDelivery]

    /// Removes a retry that ended (delivered or given up).
    func completeRetry(id: Int64) async throws

    /// Puts a claimed retry back for another attempt.
    func rescheduleRetry(id: Int64, attempts: Int, dueAt: Int64, lastReason: String?) async throws

    /// Unix milliseconds at which the next claim can succeed, if any retry is pending (so a
    /// worker can sleep until then): the due time of an unleased retry, or for a leased one
    /// the later of its due time and its lease's expiry, so that retries a crashed worker
    /// held are picked up again.
    func nextRetryDue() async throws -> Int64?

    /// How many deliveries are due at `nowMillis` and held by no worker: what a claim would take
    /// now if it had room (the dashboard's "retries due", `herald_retries_due`).
    func retriesDue(nowMillis: Int64) async throws -> Int
}
