import HeraldCore

/// Registered subscribers (§3.1, §4.2–4.5).
public protocol SubscriberStore: Sendable {
    /// Registers `(proto, identity)` or refreshes it (idempotent, §4.2).
    ///
    /// A new subscriber gets a fresh random id and `created = updated = now`. An
    /// existing one gets the given fields merged over the stored ones, its token
    /// replaced (Web Push keys change), `updated = now` and its failure counter reset.
    /// - Returns: the stored subscriber and whether it was created.
    /// - Throws: ``StoreError/idExhausted`` when 10 fresh ids in a row are all taken (§3.1).
    func register(_ registration: SubscriberRegistration, now: Int64) async throws -> (subscriber: Subscriber, created: Bool)

    /// Registers many subscribers in one transaction, each as ``register(_:now:)`` does, and subscribes
    /// each (not silent) to `event` when given. For seeding and imports.
    /// - Returns: the ids, in the order of `registrations`.
    func registerMany(_ registrations: [SubscriberRegistration], subscribingTo event: EventName?, now: Int64) async throws -> [SubscriberID]

    /// The subscriber with `id`, or `nil`.
    func subscriber(_ id: SubscriberID) async throws -> Subscriber?

    /// The subscriber registered as `(proto, identity)` (the provider's normalized form of its
    /// token), or `nil`: the dashboard's search by token.
    func subscriber(proto: String, identity: String) async throws -> Subscriber?

    /// Merges `fields` into the subscriber, sets `updated = now` and resets its failure counter.
    /// - Returns: `false` when there is no such subscriber.
    func updateSubscriber(_ id: SubscriberID, fields: SubscriberFields, now: Int64) async throws -> Bool

    /// Deletes the subscriber, its subscriptions, its `unicast:<id>` statistics, its
    /// pending retries, every event left without subscriptions, and the `broadcast`
    /// statistics when it was the last subscriber (§4.5).
    /// - Returns: `false` when there is no such subscriber.
    func deleteSubscriber(_ id: SubscriberID) async throws -> Bool

    /// Increments the stored badge of each subscriber by one (absent or non-integer counts as 0)
    /// in one transaction, starting from the badges the caller has just read (an audience page):
    /// where a stored badge still has the expected value it is written without being read again;
    /// where it changed meanwhile, the stored value is used. An id listed twice is incremented once.
    ///
    /// - Returns: for each expectation, in order, the badge as it was before, or that the
    ///   subscriber no longer exists.
    func incrementBadges(expecting expectations: [BadgeExpectation]) async throws -> [BadgeIncrement]
}
