import HeraldCore

/// The effect of one delivery on its subscriber, recorded in a batch.
public struct DeliveryRecord: Sendable, Equatable {
    /// The subscriber (`nil`: a raw token; only statistics-free feedback and dead letters apply).
    public var subscriberID: SubscriberID?
    /// The front-end the delivery came through.
    public var origin: DeliveryOrigin
    /// The sender's own id for the notification, written with its feedback.
    public var reference: String?
    /// The provider name it was delivered through.
    public var proto: String
    /// Its token (for the feedback log).
    public var token: String
    /// The statistics row to count in (`nil`: `/test`).
    public var statisticsEvent: EventName?
    /// What happened.
    public var effect: Effect
    /// What to keep as a dead letter if the effect is a failure (`failed` or `subscriberFailure`);
    /// `nil` keeps none.
    public var deadLetter: DeadLetterContent?
    /// Whether a `delivered` effect resets the subscriber's failure counter: `false` when the
    /// counter was 0 as read with the subscriber for this delivery.
    ///
    /// The reset is then not written: nearly every delivery of a fan-out finds a counter of 0,
    /// and writing the page's resets cost a statement with every member's id at every settlement.
    /// A failure counted by a concurrent delivery since the read is kept, as if it had come after
    /// this one: concurrent deliveries' outcomes have no order of their own. A failure earlier in
    /// the same batch of records is still reset (``FailureCounterChanges``).
    public var resetsFailures: Bool

    /// What a delivery does to its subscriber and the statistics.
    public enum Effect: Sendable, Equatable {
        /// Counted as delivered; the failure counter is reset.
        case delivered
        /// Counted as failed; the subscriber is unregistered unless it registered again
        /// after `invalidSince` (Unix milliseconds).
        case deadToken(reason: String, status: Int?, invalidSince: Int64?)
        /// Counted as failed; the failure counter grows, unregistering at the threshold.
        case subscriberFailure(reason: String, status: Int?)
        /// Counted as failed; the subscriber is not affected (message or configuration problem, or
        /// retries of a push service ran out).
        case failed(reason: String, status: Int?)
    }

    /// Creates a record.
    public init(
        subscriberID: SubscriberID?, origin: DeliveryOrigin = .pushd, reference: String? = nil, proto: String, token: String,
        statisticsEvent: EventName?, effect: Effect, deadLetter: DeadLetterContent? = nil, resetsFailures: Bool = true
    ) {
        self.resetsFailures = resetsFailures
        self.reference = reference
        self.subscriberID = subscriberID
        self.origin = origin
        self.proto = proto
        self.token = token
        self.statisticsEvent = statisticsEvent
        self.effect = effect
        self.deadLetter = deadLetter
    }
}
