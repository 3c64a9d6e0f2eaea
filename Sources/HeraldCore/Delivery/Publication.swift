/// One accepted publication, as every delivery of it sees it: what is sent, where it came from,
/// where its outcomes are counted, and when it was published.
///
/// A publish job, the retries of its deliveries, a raw send and a dead letter all hold the same
/// value, so the five facts travel together from the intake to the last settlement. Deliveries
/// of one publication render once per variant and settle together: it is also their grouping key.
public struct Publication: Sendable, Hashable {
    /// What is sent: a compiled event, or a payload a front-end prepared for one provider.
    public var content: DeliveryContent
    /// The front-end it came through.
    public var origin: DeliveryOrigin
    /// The statistics row its deliveries count in (`nil`: none, as for `/test`).
    public var statisticsEvent: EventName?
    /// Unix seconds when it was accepted; `ttl` is reckoned from here.
    public var publishedAt: Int64
    /// The publish whose receipt its outcomes count in; `nil` for raw sends and replayed dead
    /// letters, which count in none.
    public var receiptID: String?

    /// Creates a publication.
    public init(
        content: DeliveryContent, origin: DeliveryOrigin = .pushd, statisticsEvent: EventName?, publishedAt: Int64, receiptID: String? = nil
    ) {
        self.content = content
        self.origin = origin
        self.statisticsEvent = statisticsEvent
        self.publishedAt = publishedAt
        self.receiptID = receiptID
    }

    /// Unix seconds after which it must not be delivered, if any.
    public var deadline: Int64? { content.deadline(publishedAt: publishedAt) }

    /// The sender's own id for it (a prepared payload's reference), written with its feedback.
    public var reference: String? {
        if case .prepared(let payload) = content { payload.reference } else { nil }
    }

    /// The same publication, counted in no receipt: what a dead letter keeps (a replay is a
    /// delivery of its own, not part of the original publish's progress).
    public var withoutReceipt: Publication {
        var publication = self
        publication.receiptID = nil
        return publication
    }
}
