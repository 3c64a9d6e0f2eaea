import HeraldCore

/// Delivery results and the feedback log (§11, `GET /feedback`).
public protocol FeedbackLog: Sendable {
    /// Applies a batch of delivery effects in one transaction: statistics
    /// (`delivered` / `failed`), failure counters (reset on success; + 1 on subscriber
    /// failure, unregistering at `maxFailures` unless it is 0), dead-token
    /// unregistrations, and a feedback entry for every non-success.
    func record(_ records: [DeliveryRecord], maxFailures: Int, now: Int64) async throws -> RecordSummary

    /// The tokens among `tokens` that a push service reported dead for provider `proto` at or after
    /// `since` (Unix seconds): those with an `invalid` entry (a raw token's dead-token answer), while
    /// the log keeps it. The Matrix gateway rejects such pushkeys, so the homeserver drops the pusher.
    func deadTokens(proto: String, among tokens: [String], since: Int64) async throws -> Set<String>

    /// Appends entries that are not delivery results (a skipped provider).
    func appendFeedback(_ entries: [FeedbackEntry]) async throws

    /// Feedback entries matching `filter` with id greater than `cursor` and time at or after `since`, oldest first.
    func feedback(matching filter: FeedbackFilter, after cursor: Int64?, since: Int64?, limit: Int) async throws -> [FeedbackEntry]

    /// Deletes entries older than `time` (Unix seconds); returns how many.
    func pruneFeedback(before time: Int64) async throws -> Int

    /// Stores each replacement token in one transaction, with a `replaced` feedback entry. A subscriber whose
    /// new token another subscriber of the same provider already holds is deleted instead (it was a duplicate),
    /// with an `unregistered` entry. Returns the subscribers deleted that way.
    func replaceTokens(_ replacements: [TokenReplacement], now: Int64) async throws -> [SubscriberID]
}

extension FeedbackLog {
    /// Every feedback entry with id greater than `cursor` and time at or after `since`, oldest first.
    public func feedback(after cursor: Int64?, since: Int64?, limit: Int) async throws -> [FeedbackEntry] {
        try await feedback(matching: FeedbackFilter(), after: cursor, since: since, limit: limit)
    }
}
