import HeraldCore
import HeraldStore

/// One delivery to try now: a subscriber, how to render for it, and its history.
struct DeliveryAttempt: Sendable {
    /// The subscriber as stored when the attempt was prepared.
    var subscriber: Subscriber
    /// Whether its subscription is silent.
    var silent: Bool
    /// The badge to send (§7), decided once per publish per subscriber.
    var badge: Int?
    /// Attempts already made (0 for a first delivery).
    var attemptsBefore: Int
    /// The retry entry this attempt comes from, if any.
    var retryID: Int64?
}

/// What came of one attempt.
enum AttemptResult: Sendable {
    /// The provider answered (or rendering failed) with this outcome.
    case outcome(DeliveryOutcome)
    /// Nothing was sent, by design (a silent toast, a badge provider with no badge).
    case skipped(String)
    /// Not sent: the destination's circuit breaker is open until `until` (Unix milliseconds).
    case deferred(until: Int64)
}
