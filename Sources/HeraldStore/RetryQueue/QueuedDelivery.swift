import HeraldCore

/// One delivery waiting in the store's delivery queue: a retry of a failed delivery, or a raw
/// send accepted from a front-end and not yet made.
///
/// Both are claimed, sent, settled, retried and dead-lettered the same way: there is one
/// delivery path whatever the front door.
public struct QueuedDelivery: Sendable, Equatable {
    /// The entry's id (assigned by the store; ignored when enqueuing).
    public var id: Int64
    /// Who it goes to.
    public var recipient: Recipient
    /// What it delivers. Its receipt is that of the publish whose delivery this retries; raw
    /// sends and replayed dead letters count in none.
    public var publication: Publication
    /// The variant as first rendered (keeps the badge of the first attempt).
    public var silent: Bool
    /// The badge number sent on the first attempt, if any.
    public var badge: Int?
    /// Attempts made so far (0 for a raw send not yet tried, 1 after the first failure).
    public var attempts: Int
    /// Most attempts for this delivery, when its sender asked for fewer than `delivery.max_attempts`
    /// (gorush's `retry`; 1 for apns-ms, which never retries); `nil`: the configured maximum.
    public var maxAttempts: Int?
    /// Unix milliseconds when it is due.
    public var dueAt: Int64
    /// The last failure's reason.
    public var lastReason: String?

    /// Creates an entry.
    public init(
        id: Int64 = 0, recipient: Recipient, publication: Publication, silent: Bool, badge: Int?, attempts: Int, maxAttempts: Int? = nil,
        dueAt: Int64, lastReason: String?
    ) {
        self.id = id
        self.recipient = recipient
        self.publication = publication
        self.silent = silent
        self.badge = badge
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.dueAt = dueAt
        self.lastReason = lastReason
    }

    /// Creates an entry as a store reads it back, from its columns.
    public init(
        id: Int64 = 0, recipient: Recipient, origin: DeliveryOrigin = .pushd, statisticsEvent: EventName?, notification: DeliveryContent,
        silent: Bool, badge: Int?, attempts: Int, maxAttempts: Int? = nil, dueAt: Int64, publishedAt: Int64, lastReason: String?,
        receiptID: String? = nil
    ) {
        self.init(
            id: id, recipient: recipient,
            publication: Publication(
                content: notification, origin: origin, statisticsEvent: statisticsEvent, publishedAt: publishedAt, receiptID: receiptID),
            silent: silent, badge: badge, attempts: attempts, maxAttempts: maxAttempts, dueAt: dueAt, lastReason: lastReason)
    }

    /// Creates a retry of a subscriber's delivery of an event.
    public init(
        id: Int64 = 0, subscriberID: SubscriberID, origin: DeliveryOrigin = .pushd, statisticsEvent: EventName?, notification: PublishedEvent,
        silent: Bool, badge: Int?, attempts: Int, dueAt: Int64, publishedAt: Int64, lastReason: String?
    ) {
        self.init(
            id: id, recipient: .subscriber(subscriberID), origin: origin, statisticsEvent: statisticsEvent, notification: .event(notification),
            silent: silent, badge: badge, attempts: attempts, dueAt: dueAt, publishedAt: publishedAt, lastReason: lastReason)
    }

    /// The subscriber it goes to, if it goes to one.
    public var subscriberID: SubscriberID? { recipient.subscriberID }
    /// The publication's content.
    public var notification: DeliveryContent {
        get { publication.content }
        set { publication.content = newValue }
    }
    /// The publication's origin.
    public var origin: DeliveryOrigin {
        get { publication.origin }
        set { publication.origin = newValue }
    }
    /// The publication's statistics row.
    public var statisticsEvent: EventName? {
        get { publication.statisticsEvent }
        set { publication.statisticsEvent = newValue }
    }
    /// The publication's time.
    public var publishedAt: Int64 {
        get { publication.publishedAt }
        set { publication.publishedAt = newValue }
    }
    /// The publication's receipt.
    public var receiptID: String? {
        get { publication.receiptID }
        set { publication.receiptID = newValue }
    }
}
