import HeraldCore

/// Taking over subscribers from another push server (`herald import pushd`): rows written with
/// the ids, times and subscriptions they had there, so that apps keep their saved ids.
///
/// Unlike ``SubscriberStore/registerMany(_:subscribingTo:now:)``, nothing is assigned: the
/// caller gives every id and time. Each call takes a whole batch (a few thousand subscribers)
/// and writes it in one transaction with a fixed number of statements, so a million subscribers
/// cost a few hundred transactions, not a million.
public protocol SubscriberImport: Sendable {
    /// Writes a batch of subscribers with their given ids, in one transaction.
    ///
    /// A subscriber whose id is stored is updated to the imported values (re-importing is
    /// idempotent); a new id is inserted. Its badge and failure counter are set, and its
    /// subscription set is made equal to ``ImportedSubscriber/subscriptions`` (events created as needed, and an event's
    /// `created` moved back to the earliest `created` of its imported subscribers, so that it
    /// does not depend on how the import was cut into batches; events left without subscriptions
    /// deleted). A subscriber whose `(proto, identity)` another id
    /// holds, in the store or earlier in the batch, is left alone and reported in
    /// ``SubscriberImportResult/conflicts``.
    func importSubscribers(_ batch: [ImportedSubscriber]) async throws -> SubscriberImportResult

    /// Overwrites `created`, `total` and `last` of events that exist, and `delivered` and `failed`
    /// where given (an import from another server keeps those of the store).
    ///
    /// An ordinary event exists while it has a subscription; `broadcast` statistics are written
    /// when there is a subscriber, `unicast:<id>` statistics when the subscriber `id` exists.
    /// Statistics of anything else are dropped (§15: events without subscriptions are not imported).
    /// - Returns: the names whose statistics were written.
    func importEventStatistics(_ statistics: [ImportedEventStatistics]) async throws -> [EventName]
}
