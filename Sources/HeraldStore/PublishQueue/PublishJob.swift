import HeraldCore

/// A durable publish job, claimed by one fan-out worker at a time.
public struct PublishJob: Sendable, Equatable {
    /// The job's id, increasing in publish order.
    public var id: Int64
    /// Who it delivers to.
    public var audience: PublishAudience
    /// What it publishes, counted in its audience's statistics row and its content's receipt.
    public var publication: Publication
    /// The last member handed to a provider before the job was last checkpointed; the next page starts after it.
    public var cursor: SubscriberID?
    /// Members up to ``cursor`` whose outcome was not recorded at the last checkpoint: sent again on resuming.
    public var pending: PendingMembers
    /// The last member of this job's part of the audience when the publish was shared out
    /// (``PublishQueue/shareJob(jobID:boundaries:lease:)``); `nil`: the audience to its end.
    public var end: SubscriberID?

    /// Creates a job as a store reads it back: the publication counts in the audience's
    /// statistics row and in the receipt of the content's publish id.
    public init(
        id: Int64, audience: PublishAudience, origin: DeliveryOrigin = .pushd, content: DeliveryContent, publishedAt: Int64,
        cursor: SubscriberID? = nil, pending: PendingMembers = .none, end: SubscriberID? = nil
    ) {
        self.id = id
        self.audience = audience
        self.publication = Publication(
            content: content, origin: origin, statisticsEvent: audience.statisticsEvent, publishedAt: publishedAt, receiptID: content.publishID)
        self.cursor = cursor
        self.pending = pending
        self.end = end
    }

    /// The publication's content.
    public var content: DeliveryContent { publication.content }
    /// The publication's origin.
    public var origin: DeliveryOrigin { publication.origin }
    /// The publication's time.
    public var publishedAt: Int64 { publication.publishedAt }
    /// The publication's receipt: its content's publish id.
    public var receiptID: String? { publication.receiptID }
}
