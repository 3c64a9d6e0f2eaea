import HeraldCore

/// Everything Herald keeps: subscribers, subscriptions, events and their
/// statistics, durable publish jobs, pending retries and the feedback log.
///
/// One process owns a SQLite store; several nodes share a PostgreSQL one, so work is *claimed*
/// with a lease (`FOR UPDATE SKIP LOCKED` in PostgreSQL, a conditional `UPDATE` in SQLite),
/// audiences are read in keyset-paginated pages ordered by subscriber id, and every method is
/// one transaction. No method loads all subscribers of an event into memory.
///
/// The union of the roles below, each a protocol of its own: a caller takes the roles it uses.
/// Every implementation must pass the store conformance suite (target
/// `HeraldStoreConformance`), run from the implementation's own test target.
public typealias HeraldStore = SubscriberStore & SubscriptionStore & EventStore & PublishQueue & RetryQueue & FeedbackLog
    & DeadLetterStore & DeliverySettlement & StoreHealth & StoreRuntime & FrontEndFeedback & FrontEndLeases & SubscriberImport & WorkImport
    & PublishReceipts & TokenStore & UnifiedPushStore
