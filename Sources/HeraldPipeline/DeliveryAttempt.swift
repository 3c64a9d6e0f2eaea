import HeraldCore
import HeraldStore

/// One delivery to try now: where it goes, how to render for it, and its history.
struct DeliveryAttempt: Sendable {
    /// The subscriber it goes to (`nil`: a raw token).
    var subscriberID: SubscriberID?
    /// The provider name.
    var proto: String
    /// The token as stored (or as the raw send gave it).
    var token: String
    /// The subscriber's language, if any.
    var lang: String?
    /// The subscriber's OS version, if any.
    var version: String?
    /// Whether its subscription is silent.
    var silent: Bool
    /// The badge to send (§7), decided once per publish per subscriber.
    var badge: Int?
    /// Attempts already made (0 for a first delivery).
    var attemptsBefore: Int
    /// The delivery's own attempt limit, if its sender set one below `delivery.max_attempts`.
    var maxAttempts: Int?
    /// The queued delivery this attempt comes from, if any.
    var retryID: Int64?
    /// Whether a success resets the subscriber's failure counter: it was above 0 as read
    /// (``DeliveryRecord/resetsFailures``).
    var resetsFailures: Bool

    /// An attempt for a subscriber as stored when it was prepared.
    init(subscriber: Subscriber, silent: Bool, badge: Int?, attemptsBefore: Int, maxAttempts: Int? = nil, retryID: Int64?) {
        self.maxAttempts = maxAttempts
        self.subscriberID = subscriber.id
        self.proto = subscriber.proto
        self.token = subscriber.token
        self.lang = subscriber.fields.lang
        self.version = subscriber.fields.version
        self.silent = silent
        self.badge = badge
        self.attemptsBefore = attemptsBefore
        self.retryID = retryID
        self.resetsFailures = subscriber.failures != 0
    }

    /// An attempt for a raw token of `proto`.
    init(proto: String, token: String, attemptsBefore: Int, maxAttempts: Int?, retryID: Int64?) {
        self.maxAttempts = maxAttempts
        self.proto = proto
        self.token = token
        self.silent = false
        self.attemptsBefore = attemptsBefore
        self.retryID = retryID
        self.resetsFailures = false
    }

    /// Where the provider sends it, as a delivery of `publishID`.
    func target(publishID: String?) -> DeliveryTarget {
        DeliveryTarget(subscriberID: subscriberID, token: token, publishID: publishID)
    }
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
