import HeraldCore

/// Reading a whole store out in keyset pages (`herald migrate`): everything ``SubscriberImport``
/// and ``WorkImport`` write, in the same value types, so that a store can be copied into another
/// whatever their backends.
///
/// Every page is one read in primary-key order after a cursor (the last key of the previous
/// page), so a copy of millions of rows holds one page in memory and never rereads a row.
public protocol StoreExport: Sendable {
    /// Subscribers with id greater than `cursor`, ascending: fields, badge, failure counter and
    /// subscriptions.
    func exportSubscribers(after cursor: SubscriberID?, limit: Int) async throws -> [ImportedSubscriber]

    /// Statistics rows (events, `broadcast`, `unicast:<id>`) with name greater than `cursor`, in byte order.
    func exportEventStatistics(after cursor: EventName?, limit: Int) async throws -> [ImportedEventStatistics]

    /// Publish jobs with id greater than `cursor`, ascending, leased or not.
    func exportPublishJobs(after cursor: Int64?, limit: Int) async throws -> [PublishJob]

    /// Queued deliveries (retries and raw sends) with id greater than `cursor`, ascending, leased or not.
    func exportQueuedDeliveries(after cursor: Int64?, limit: Int) async throws -> [QueuedDelivery]

    /// Feedback entries with id greater than `cursor`, ascending, taken or not.
    func exportFeedback(after cursor: Int64?, limit: Int) async throws -> [ImportedFeedback]

    /// Publish receipts with id greater than `cursor`, ascending: scheduled publishes with what
    /// they will send, idempotency keys, progress and failures by reason.
    func exportPublishes(after cursor: String?, limit: Int) async throws -> [PublishRecord]
}
