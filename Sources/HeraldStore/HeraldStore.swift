import HeraldCore

/// Everything Herald keeps: subscribers, subscriptions, events and their
/// statistics, durable publish jobs, pending retries and the feedback log.
///
/// The interface is shaped so that a PostgreSQL implementation can follow
/// without changing callers: work is *claimed* with a lease (`FOR UPDATE SKIP
/// LOCKED` there, a conditional `UPDATE` in SQLite), audiences are read in
/// keyset-paginated pages ordered by subscriber id, and every method is one
/// transaction. No method loads all subscribers of an event into memory.
///
/// Every implementation must pass the store conformance suite (target
/// `HeraldStoreConformance`), run from the implementation's own test target.
public typealias HeraldStore = SubscriberStore & SubscriptionStore & EventStore & PublishQueue & RetryQueue & FeedbackLog
    & DeadLetterStore & DeliverySettlement & StoreHealth & StoreRuntime & FrontEndFeedback & FrontEndLeases & SubscriberImport & WorkImport
    & PublishReceipts

/// What the store owns besides its rows: its connections, the time every node agrees on, and
/// the stream that wakes nodes when work arrives.
public protocol StoreRuntime: Sendable {
    /// The clock leases, due times and timestamps are reckoned in.
    ///
    /// A store that one process owns (SQLite) reads the process's clock; a store shared by
    /// several nodes reads the database server's, so that they agree on when a lease expires
    /// or a retry is due whatever their own clocks say. Every part of Herald reads this one.
    var clock: WallClock { get }

    /// Runs what the store owns while Herald runs (a connection pool's background work, a
    /// listener for other nodes' wake-ups) until its task is cancelled, which happens after every
    /// other service stopped; connections are closed by ``StoreHealth/close()`` after that. A
    /// store with nothing to run waits for the cancellation.
    func run() async throws

    /// A stream of wake-ups: new jobs, new deliveries, and accepted events for Server-Sent
    /// Events listeners. An embedded store fills it in-process; a shared one across nodes, so a
    /// listener on one node gets what was published on another.
    func wakeUps() -> AsyncStream<StoreWakeUp>

    /// Announces an accepted event to the Server-Sent Events listeners of every node (as
    /// ``StoreWakeUp/event(_:)``), whether or not it had subscribers.
    func announce(_ event: PublishedEvent) async throws
}

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
    /// - Returns: for each expectation, in order, the badge as it was before (`.some(nil)`: none),
    ///   or `nil` when the subscriber no longer exists.
    func incrementBadges(expecting expectations: [BadgeExpectation]) async throws -> [String??]
}

/// A subscriber and the badge the caller believes is stored for it.
public struct BadgeExpectation: Sendable, Equatable {
    /// The subscriber.
    public var id: SubscriberID
    /// The stored badge as the caller read it (`nil`: none).
    public var storedBadge: String?

    /// Creates an expectation.
    public init(id: SubscriberID, storedBadge: String?) {
        self.id = id
        self.storedBadge = storedBadge
    }
}

/// The outcome of a single subscribe (§4.10).
public enum SubscribeResult: Sendable, Equatable {
    /// A new subscription was made.
    case created
    /// The subscription existed; its option was overwritten.
    case updated
    /// No subscriber has that id; nothing was stored.
    case unknownSubscriber
}

/// Subscriptions: subscriber → event with `ignore_message` (§4.7–4.11).
public protocol SubscriptionStore: Sendable {
    /// The subscriber's subscriptions sorted by event name, or `nil` when the subscriber does not exist.
    func subscriptions(of id: SubscriberID) async throws -> [(event: EventName, ignoreMessage: Bool)]?

    /// The `ignore_message` of one subscription, or `nil` when the subscriber or the subscription does not exist.
    func subscription(of id: SubscriberID, to event: EventName) async throws -> Bool?

    /// Subscribes (creating the event on its first subscription, `created = now`) or overwrites the option.
    func subscribe(_ id: SubscriberID, to event: EventName, ignoreMessage: Bool, now: Int64) async throws -> SubscribeResult

    /// Removes one subscription (if any), deleting the event when it was the last.
    /// - Returns: `false` when the subscriber does not exist.
    func unsubscribe(_ id: SubscriberID, from event: EventName) async throws -> Bool

    /// Makes the subscriber's subscription set equal to `subscriptions`, atomically (§4.8).
    /// - Returns: `false` when the subscriber does not exist (nothing changed).
    func replaceSubscriptions(of id: SubscriberID, with subscriptions: [(event: EventName, ignoreMessage: Bool)], now: Int64) async throws -> Bool
}

/// Event statistics (§14).
public struct EventStatistics: Sendable, Equatable {
    /// Unix seconds of the event's first subscription (special names: of their first publish).
    public var created: Int64
    /// Unix seconds of the last publish that reached at least one subscriber.
    public var last: Int64?
    /// Publishes that reached at least one subscriber.
    public var total: Int64
    /// Current subscriptions (`broadcast`: registered subscribers; `unicast:<id>`: 1).
    public var subscribers: Int64
    /// Deliveries the push services accepted.
    public var delivered: Int64
    /// Deliveries that ended in failure.
    public var failed: Int64

    /// Creates statistics.
    public init(created: Int64, last: Int64? = nil, total: Int64 = 0, subscribers: Int64 = 0, delivered: Int64 = 0, failed: Int64 = 0) {
        self.created = created
        self.last = last
        self.total = total
        self.subscribers = subscribers
        self.delivered = delivered
        self.failed = failed
    }
}

/// Events and their statistics (§4.13, §4.14, §4.16, §14).
public protocol EventStore: Sendable {
    /// Names of every event with at least one subscription, in ascending byte order.
    func eventNames() async throws -> [EventName]

    /// The event's statistics, or `nil` when it does not exist (§4.14, §14.2).
    func statistics(of event: EventName) async throws -> EventStatistics?

    /// Deletes an event (§4.16): for an ordinary name its subscriptions and statistics;
    /// for `broadcast` / `unicast:<id>` the statistics and explicit subscriptions only.
    /// - Returns: `false` when there was nothing to delete.
    func deleteEvent(_ event: EventName) async throws -> Bool
}

/// Who a publish job delivers to.
public enum PublishAudience: Sendable, Equatable {
    /// The event's subscribers, each with its subscription's `ignore_message`.
    case subscribers(EventName)
    /// Every registered subscriber, none silent.
    case broadcast
    /// One subscriber, not silent (`unicast:<id>`).
    case unicast(SubscriberID)
    /// One subscriber, not silent, no statistics (`POST /subscriber/:id/test`).
    case test(SubscriberID)
    /// The subscribers of provider `proto` subscribed to any of the events, each once and none
    /// silent (Choominator's notification to several groups, compat.md §5.3).
    ///
    /// Enqueueing counts one publish (`total + 1`, `last = now`) in the statistics of each listed
    /// event that exists; its deliveries count in no statistics row, since a subscriber in several
    /// of the events would have to be counted in one of them arbitrarily.
    case groups([EventName], proto: String)

    /// The statistics row this audience's deliveries count in, if any.
    public var statisticsEvent: EventName? {
        switch self {
        case .subscribers(let event): event
        case .broadcast: .broadcast
        case .unicast(let id): .unicast(id)
        case .test, .groups: nil
        }
    }
}

/// The answer to an enqueued publish.
public enum EnqueueResult: Sendable, Equatable {
    /// The job is stored (and statistics updated); it will be fanned out.
    case queued(jobID: Int64)
    /// Nobody is subscribed: nothing stored (SSE listeners may still be served).
    case noAudience
    /// A unicast or test to an id that is not a subscriber.
    case unknownSubscriber
    /// Stored with its receipt to be released when due (``PublishReceipts``).
    case scheduled
    /// A repeat of the publish `publishID` under the same idempotency key: nothing stored.
    case repeated(publishID: String)
    /// The idempotency key was used by a publish of something else: nothing stored.
    case keyConflict
}

/// A durable publish job, claimed by one fan-out worker at a time.
public struct PublishJob: Sendable, Equatable {
    /// The job's id, increasing in publish order.
    public var id: Int64
    /// Who it delivers to.
    public var audience: PublishAudience
    /// The front-end it was published through.
    public var origin: DeliveryOrigin
    /// What is sent: a compiled event, or a payload a front-end prepared for one provider.
    public var content: DeliveryContent
    /// Unix seconds when it was accepted.
    public var publishedAt: Int64
    /// The last member handed to a provider before the job was last checkpointed; the next page starts after it.
    public var cursor: SubscriberID?
    /// Members up to ``cursor`` whose outcome was not recorded at the last checkpoint: sent again on resuming.
    public var pending: PendingMembers
    /// The last member of this job's part of the audience when the publish was shared out
    /// (``PublishQueue/shareJob(jobID:boundaries:lease:)``); `nil`: the audience to its end.
    public var end: SubscriberID?

    /// Creates a job.
    public init(
        id: Int64, audience: PublishAudience, origin: DeliveryOrigin = .pushd, content: DeliveryContent, publishedAt: Int64,
        cursor: SubscriberID? = nil, pending: PendingMembers = .none, end: SubscriberID? = nil
    ) {
        self.id = id
        self.audience = audience
        self.origin = origin
        self.content = content
        self.publishedAt = publishedAt
        self.cursor = cursor
        self.pending = pending
        self.end = end
    }
}

/// One subscriber of a job's audience, with its subscription option.
public struct AudienceMember: Sendable, Equatable {
    /// The subscriber as stored.
    public var subscriber: Subscriber
    /// Whether its subscription is silent (never for broadcast, unicast, test).
    public var silent: Bool
    /// Whether the store incremented its stored badge while reading the page
    /// (``PublishQueue/audience(of:after:limit:incrementingBadgesOf:)``); ``subscriber``'s badge
    /// is then the one before.
    public var badgeIncremented: Bool

    /// Creates a member.
    public init(subscriber: Subscriber, silent: Bool, badgeIncremented: Bool = false) {
        self.subscriber = subscriber
        self.silent = silent
        self.badgeIncremented = badgeIncremented
    }
}

extension PublishQueue {
    /// A plain page cut at the job's end; no badge is incremented.
    public func audience(
        of job: PublishJob, after cursor: SubscriberID?, limit: Int, incrementingBadgesOf counting: Set<String>
    ) async throws -> [AudienceMember] {
        try await audienceToEnd(of: job, after: cursor, limit: limit)
    }

    /// ``audience(of:after:limit:)`` without the members past the job's ``PublishJob/end``.
    public func audienceToEnd(of job: PublishJob, after cursor: SubscriberID?, limit: Int) async throws -> [AudienceMember] {
        var page = try await audience(of: job, after: cursor, limit: limit)
        if let end = job.end { page.removeAll { $0.subscriber.id > end } }
        return page
    }
}

/// A claim on work: who holds it and until when.
public struct Lease: Sendable, Equatable {
    /// The worker's identity (unique per process).
    public var owner: String
    /// Unix milliseconds after which another worker may take the work.
    public var expiresAt: Int64

    /// Creates a lease.
    public init(owner: String, expiresAt: Int64) {
        self.owner = owner
        self.expiresAt = expiresAt
    }
}

/// The durable publish queue (§6).
public protocol PublishQueue: Sendable {
    /// Resolves the audience and, if it is non-empty, stores the job and updates the
    /// statistics (`total + 1`, `last = now`; `test` touches none, `groups` each listed event
    /// that exists), in one transaction.
    func enqueue(_ audience: PublishAudience, content: DeliveryContent, origin: DeliveryOrigin, now: Int64) async throws -> EnqueueResult

    /// Claims up to `limit` jobs that nobody holds (or whose lease expired before `nowMillis`), oldest first.
    func claimJobs(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [PublishJob]

    /// The next page of a job's audience: members with id greater than `cursor`, ascending by id.
    ///
    /// The page is not cut at the job's ``PublishJob/end``: the fan-out stops there itself.
    func audience(of job: PublishJob, after cursor: SubscriberID?, limit: Int) async throws -> [AudienceMember]

    /// The next page of a fan-out whose deliveries increment badges: as
    /// ``audience(of:after:limit:)``, but cut at the job's ``PublishJob/end``, and a store may
    /// increment the stored badge of the members whose `proto` is in `counting` in the same step
    /// (as ``SubscriberStore/incrementBadges(expecting:)`` would: plus one, `"1"` when absent or
    /// not an integer). It marks those members ``AudienceMember/badgeIncremented``, their
    /// ``SubscriberFields/badge`` still the badge before; the caller increments the others itself.
    ///
    /// A store that answers it as a plain page (marking no member) keeps the contract; the
    /// default implementation does. The page is cut at the end so that no member of the next
    /// part of a shared publish is incremented twice.
    func audience(
        of job: PublishJob, after cursor: SubscriberID?, limit: Int, incrementingBadgesOf counting: Set<String>
    ) async throws -> [AudienceMember]

    /// Where to cut a job's audience into parts of `every` members: the id of the last member of
    /// each part but the last, ascending, at most `limit` of them. Only audiences of an event's
    /// subscribers and of a broadcast are cut; any other answers none.
    func audienceBoundaries(of job: PublishJob, every: Int, limit: Int) async throws -> [SubscriberID]

    /// Shares a job out, so that workers of every node can take its parts: the job keeps the
    /// members up to `boundaries[0]`, and for each following part a job with the same content,
    /// origin and publish time is stored unclaimed (its cursor the previous boundary, its end the
    /// next one, the last open-ended), in one transaction that other nodes are woken for.
    /// Statistics are not touched: the publish was counted once.
    ///
    /// Only a job with no end yet is shared, and only while its checkpointed cursor (if any) lies
    /// before `boundaries[0]`: its holder may have handed its first page over while the cuts
    /// were chosen, but nothing after them.
    /// - Returns: `false` when `lease` no longer holds the job, or it has an end or a cursor at or
    ///   past the first boundary (nothing changed).
    func shareJob(jobID: Int64, boundaries: [SubscriberID], lease: Lease) async throws -> Bool

    /// Records progress: every member up to and including `cursor` was handed to its provider
    /// and its outcome recorded. Also renews the lease.
    /// - Returns: `false` when the lease was lost (another worker took the job).
    func checkpoint(jobID: Int64, cursor: SubscriberID, lease: Lease) async throws -> Bool

    /// Removes a fully fanned-out job.
    func completeJob(jobID: Int64, owner: String) async throws

    /// Gives up every lease `owner` holds, on jobs and retries, so another node can take the
    /// work over at once instead of after the lease expires (graceful shutdown).
    func releaseLeases(owner: String) async throws

    /// How much accepted work is not yet done: unfinished jobs and pending retries.
    func backlog() async throws -> Backlog
}

extension PublishQueue {
    /// Enqueues a publish of the rs/pushd API.
    public func enqueue(_ audience: PublishAudience, notification: PublishedEvent, now: Int64) async throws -> EnqueueResult {
        try await enqueue(audience, content: .event(notification), origin: .pushd, now: now)
    }

    /// Enqueues a publish of an event through a front-end.
    public func enqueue(_ audience: PublishAudience, notification: PublishedEvent, origin: DeliveryOrigin, now: Int64) async throws -> EnqueueResult {
        try await enqueue(audience, content: .event(notification), origin: origin, now: now)
    }
}

/// Accepted work that is not yet done.
public struct Backlog: Sendable, Equatable {
    /// Publish jobs not yet fully fanned out.
    public var jobs: Int
    /// Deliveries waiting for a retry.
    public var retries: Int

    /// Creates a backlog count.
    public init(jobs: Int, retries: Int) {
        self.jobs = jobs
        self.retries = retries
    }
}

/// Who one queued delivery goes to.
public enum Recipient: Sendable, Hashable {
    /// A registered subscriber, read again when the delivery is made (its token may have changed).
    case subscriber(SubscriberID)
    /// A raw token of a provider, never registered (the compat front-ends' sends).
    case token(proto: String, token: String)

    /// The subscriber, when it is one.
    public var subscriberID: SubscriberID? {
        if case .subscriber(let id) = self { id } else { nil }
    }
}

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
    /// The front-end it came through.
    public var origin: DeliveryOrigin
    /// The statistics row the delivery counts in, if any.
    public var statisticsEvent: EventName?
    /// What is sent.
    public var notification: DeliveryContent
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
    /// Unix seconds when the notification was published (for `ttl`).
    public var publishedAt: Int64
    /// The last failure's reason.
    public var lastReason: String?
    /// The publish whose receipt this delivery counts in: a retry of one of its deliveries; `nil`
    /// for raw sends and replayed dead letters, which count in none.
    public var receiptID: String?

    /// Creates an entry.
    public init(
        id: Int64 = 0, recipient: Recipient, origin: DeliveryOrigin = .pushd, statisticsEvent: EventName?, notification: DeliveryContent,
        silent: Bool, badge: Int?, attempts: Int, maxAttempts: Int? = nil, dueAt: Int64, publishedAt: Int64, lastReason: String?,
        receiptID: String? = nil
    ) {
        self.receiptID = receiptID
        self.id = id
        self.maxAttempts = maxAttempts
        self.recipient = recipient
        self.origin = origin
        self.statisticsEvent = statisticsEvent
        self.notification = notification
        self.silent = silent
        self.badge = badge
        self.attempts = attempts
        self.dueAt = dueAt
        self.publishedAt = publishedAt
        self.lastReason = lastReason
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
}

/// The delivery queue: retries, and raw sends waiting for their first attempt, persisted so
/// that a restart resumes them.
public protocol RetryQueue: Sendable {
    /// Stores deliveries (ids are assigned), in one transaction. Entries whose subscriber no
    /// longer exists are dropped: a retry never outlives its subscriber (§4.5). Raw-token
    /// entries are always stored.
    func scheduleRetries(_ entries: [QueuedDelivery]) async throws

    /// Claims up to `limit` deliveries due at `nowMillis` that nobody holds, earliest first.
    func claimDueRetries(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [QueuedDelivery]

    /// Removes a retry that ended (delivered or given up).
    func completeRetry(id: Int64) async throws

    /// Puts a claimed retry back for another attempt.
    func rescheduleRetry(id: Int64, attempts: Int, dueAt: Int64, lastReason: String?) async throws

    /// Unix milliseconds at which the next claim can succeed, if any retry is pending (so a
    /// worker can sleep until then): the due time of an unleased retry, or for a leased one
    /// the later of its due time and its lease's expiry, so that retries a crashed worker
    /// held are picked up again.
    func nextRetryDue() async throws -> Int64?

    /// How many deliveries are due at `nowMillis` and held by no worker: what a claim would take
    /// now if it had room (the dashboard's "retries due", `herald_retries_due`).
    func retriesDue(nowMillis: Int64) async throws -> Int
}

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

/// An entry of the feedback log: something a push service reported, or an unregistration.
public struct FeedbackEntry: Sendable, Equatable {
    /// What Herald did about it.
    public enum Action: String, Sendable, Hashable {
        /// The subscriber was unregistered.
        case unregistered
        /// The delivery failed; the subscriber was kept.
        case failed
        /// The push service said the token is invalid, but the subscriber registered again since, so it was kept.
        case kept
        /// The subscriber's provider is not configured any more; it was skipped.
        case skipped
        /// The push service named a newer token for the subscriber (legacy GCM's canonical id); it was stored.
        case replaced
        /// The push service said a raw token (no subscriber) is no longer valid: its sender should stop using it.
        case invalid
    }

    /// Increasing id: a cursor for readers.
    public var id: Int64
    /// Unix seconds.
    public var time: Int64
    /// The subscriber (`nil`: a raw token, sent by a compat front-end).
    public var subscriberID: SubscriberID?
    /// The front-end the delivery came through.
    public var origin: DeliveryOrigin
    /// Its provider name.
    public var proto: String
    /// Its token.
    public var token: String
    /// The service's HTTP status, if any.
    public var status: Int?
    /// The reason (`BadDeviceToken`, `failures:5`, ...).
    public var reason: String
    /// What Herald did.
    public var action: Action
    /// For ``Action/replaced``: the token stored instead of ``token``.
    public var replacement: String?
    /// The sender's own id for the notification (a prepared payload's ``PreparedPayload/reference``).
    public var reference: String?
    /// For a dead token: when the service says it stopped being valid (Unix milliseconds, APNs's
    /// `timestamp`), if it said.
    public var invalidSince: Int64?

    /// Creates an entry.
    public init(
        id: Int64 = 0, time: Int64, subscriberID: SubscriberID?, origin: DeliveryOrigin = .pushd, proto: String, token: String, status: Int?,
        reason: String, action: Action, replacement: String? = nil, reference: String? = nil, invalidSince: Int64? = nil
    ) {
        self.reference = reference
        self.invalidSince = invalidSince
        self.id = id
        self.time = time
        self.subscriberID = subscriberID
        self.origin = origin
        self.proto = proto
        self.token = token
        self.status = status
        self.reason = reason
        self.action = action
        self.replacement = replacement
    }
}

/// What recording a batch of outcomes changed.
public struct RecordSummary: Sendable, Equatable {
    /// Subscribers unregistered by this batch, with the reason.
    public var unregistered: [(id: SubscriberID, reason: String)]

    /// Creates a summary.
    public init(unregistered: [(id: SubscriberID, reason: String)] = []) {
        self.unregistered = unregistered
    }

    public static func == (lhs: RecordSummary, rhs: RecordSummary) -> Bool {
        lhs.unregistered.map(\.id) == rhs.unregistered.map(\.id) && lhs.unregistered.map(\.reason) == rhs.unregistered.map(\.reason)
    }
}

/// Delivery results and the feedback log (§11, `GET /feedback`).
public protocol FeedbackLog: Sendable {
    /// Applies a batch of delivery effects in one transaction: statistics
    /// (`delivered` / `failed`), failure counters (reset on success; + 1 on subscriber
    /// failure, unregistering at `maxFailures` unless it is 0), dead-token
    /// unregistrations, and a feedback entry for every non-success.
    func record(_ records: [DeliveryRecord], maxFailures: Int, now: Int64) async throws -> RecordSummary

    /// Appends entries that are not delivery results (a skipped provider).
    func appendFeedback(_ entries: [FeedbackEntry]) async throws

    /// Feedback entries matching `filter` with id greater than `cursor` and time at or after `since`, oldest first.
    func feedback(matching filter: FeedbackFilter, after cursor: Int64?, since: Int64?, limit: Int) async throws -> [FeedbackEntry]

    /// Deletes entries older than `time` (Unix seconds); returns how many.
    func pruneFeedback(before time: Int64) async throws -> Int

    /// Stores each replacement token in one transaction, with a `replaced` feedback entry. A subscriber whose
    /// new token another subscriber of the same provider already holds is deleted instead (it was a duplicate),
    /// with an `unregistered` entry. Returns the subscribers deleted that way.
    func replaceTokens(_ replacements: [TokenReplacement], now: Int64) async throws -> [SubscriberID]
}

extension FeedbackLog {
    /// Every feedback entry with id greater than `cursor` and time at or after `since`, oldest first.
    public func feedback(after cursor: Int64?, since: Int64?, limit: Int) async throws -> [FeedbackEntry] {
        try await feedback(matching: FeedbackFilter(), after: cursor, since: since, limit: limit)
    }
}

/// Which feedback entries a reader wants; every given field must match.
public struct FeedbackFilter: Sendable, Equatable {
    /// Of deliveries that came through this front-end.
    public var origin: DeliveryOrigin?
    /// Of this provider.
    public var proto: String?

    /// Creates a filter; with no argument it matches everything.
    public init(origin: DeliveryOrigin? = nil, proto: String? = nil) {
        self.origin = origin
        self.proto = proto
    }
}

/// A token a push service said to use instead of the stored one.
public struct TokenReplacement: Sendable, Equatable {
    /// The subscriber.
    public var subscriberID: SubscriberID
    /// Its provider name.
    public var proto: String
    /// The token the delivery went to.
    public var oldToken: String
    /// The normalized token to store.
    public var newToken: String
    /// The new token's identity (see ``NormalizedToken``).
    public var identity: String
    /// The front-end the delivery that brought it came through.
    public var origin: DeliveryOrigin

    /// Creates a replacement.
    public init(subscriberID: SubscriberID, proto: String, oldToken: String, newToken: String, identity: String, origin: DeliveryOrigin = .pushd) {
        self.origin = origin
        self.subscriberID = subscriberID
        self.proto = proto
        self.oldToken = oldToken
        self.newToken = newToken
        self.identity = identity
    }
}

/// Row counts, for health checks, metrics and tests that assert an empty store.
public struct StoreCounts: Sendable, Equatable {
    /// Registered subscribers.
    public var subscribers: Int
    /// Subscriptions.
    public var subscriptions: Int
    /// Event rows (events and statistics of special names).
    public var events: Int
    /// Publish jobs not yet completed.
    public var jobs: Int
    /// Pending retries.
    public var retries: Int
    /// Dead letters kept.
    public var deadLetters: Int

    /// Creates counts.
    public init(subscribers: Int, subscriptions: Int, events: Int, jobs: Int, retries: Int, deadLetters: Int = 0) {
        self.subscribers = subscribers
        self.subscriptions = subscriptions
        self.events = events
        self.jobs = jobs
        self.retries = retries
        self.deadLetters = deadLetters
    }
}

/// Whether the store can be used.
public protocol StoreHealth: Sendable {
    /// Runs a trivial query; throws when the database cannot be used.
    func ping() async throws

    /// Row counts of every table that the API can empty.
    func counts() async throws -> StoreCounts

    /// Closes connections.
    func close() async throws
}
