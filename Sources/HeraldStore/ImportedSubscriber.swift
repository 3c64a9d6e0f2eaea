import HeraldCore

/// A subscriber as another push server stored it, to be written with its own id (``SubscriberImport``).
public struct ImportedSubscriber: Sendable, Equatable {
    /// The id it keeps.
    public var id: SubscriberID
    /// The provider name.
    public var proto: String
    /// The normalized token.
    public var token: String
    /// What makes two registrations the same subscriber (usually the token).
    public var identity: String
    /// The optional fields, badge included, stored verbatim.
    public var fields: SubscriberFields
    /// Unix seconds of its first registration.
    public var created: Int64
    /// Unix seconds of its last registration or update.
    public var updated: Int64
    /// Its subscriptions; a name listed twice keeps its last option.
    public var subscriptions: [ImportedSubscription]
    /// Its consecutive permanent failures (0 for a fresh import; `herald migrate` keeps the count).
    public var failures: Int

    /// Creates an imported subscriber; `identity` defaults to the token.
    public init(
        id: SubscriberID, proto: String, token: String, identity: String? = nil, fields: SubscriberFields = .init(),
        created: Int64, updated: Int64, subscriptions: [ImportedSubscription] = [], failures: Int = 0
    ) {
        self.failures = failures
        self.id = id
        self.proto = proto
        self.token = token
        self.identity = identity ?? token
        self.fields = fields
        self.created = created
        self.updated = updated
        self.subscriptions = subscriptions
    }

    /// The batch as a store writes it: every id once (its last listing wins) and every
    /// `(proto, identity)` once (its first holder wins; the others are returned as conflicts),
    /// each with its subscriptions listed once per event, sorted by name.
    ///
    /// Both backends write a batch with set-based statements that may touch a row only once, so
    /// they share this one reading of an unusual batch.
    public static func normalizedBatch(_ batch: [ImportedSubscriber]) -> (accepted: [ImportedSubscriber], conflicts: [SubscriberID]) {
        var lastIndex: [SubscriberID: Int] = [:]
        for (index, subscriber) in batch.enumerated() {
            lastIndex[subscriber.id] = index
        }
        var holders: [IdentityKey: SubscriberID] = [:]
        var accepted: [ImportedSubscriber] = []
        accepted.reserveCapacity(batch.count)
        var conflicts: [SubscriberID] = []
        for (index, subscriber) in batch.enumerated() where lastIndex[subscriber.id] == index {
            let key = IdentityKey(proto: subscriber.proto, identity: subscriber.identity)
            if let holder = holders[key], holder != subscriber.id {
                conflicts.append(subscriber.id)
                continue
            }
            holders[key] = subscriber.id
            var options: [String: Bool] = [:]
            for subscription in subscriber.subscriptions {
                options[subscription.event.rawValue] = subscription.ignoreMessage
            }
            var normalized = subscriber
            normalized.subscriptions = options.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .compactMap { name, ignore in EventName(name).map { ImportedSubscription(event: $0, ignoreMessage: ignore) } }
            accepted.append(normalized)
        }
        return (accepted, conflicts)
    }

    /// `(proto, identity)`: what is unique among subscribers.
    private struct IdentityKey: Hashable {
        var proto: String
        var identity: String
    }
}
