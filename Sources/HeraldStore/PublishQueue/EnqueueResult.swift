import HeraldCore

/// The answer to an enqueued publish.
public enum EnqueueResult: Sendable, Equatable {
    /// The job is stored (and statistics updated); it will be fanned out.
    case queued(jobID: Int64)
    /// Nobody is subscribed: nothing stored (SSE listeners may still be served).
    case noAudience
    /// A unicast or test to an id that is not a subscriber.
    case unknownSubscriber
    /// Stored with its receipt to be released when due (``PublishReceipts``).
    case scheduled
    /// A repeat of the publish `publishID` under the same idempotency key: nothing stored.
    case repeated(publishID: String)
    /// The idempotency key was used by a publish of something else: nothing stored.
    case keyConflict
}
