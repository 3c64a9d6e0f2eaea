import HeraldCore

/// Publishes with a receipt: their progress, their schedule and their idempotency key
/// (`GET /publishes/<id>`, `DELETE /publishes/<id>`, `Idempotency-Key`).
///
/// A receipt is a row per publish, written in the transaction that accepts it. Its counters are
/// moved by ``DeliverySettlement/settle(_:maxFailures:now:)`` with ``Settlement/receipts`` (one
/// statement per settlement, however many publishes), so they count exactly what was recorded;
/// the deliveries waiting for a retry are counted from the retry queue itself when a receipt is
/// read, and a publish is `done` once no job of it is left and no retry of it waits.
public protocol PublishReceipts: Sendable {
    /// Accepts a publish with its receipt, in one transaction: as
    /// ``PublishQueue/enqueue(_:content:origin:now:)`` when it is due now, or stored to be
    /// released by ``releaseScheduledPublishes(now:limit:)`` when ``PublishRequest/dueAt`` is
    /// later than `now` (its audience is resolved then).
    ///
    /// With an idempotency claim, a key stored by a publish made at or after
    /// ``IdempotencyClaim/since`` answers ``EnqueueResult/repeated(publishID:)`` when the
    /// fingerprints match and ``EnqueueResult/keyConflict`` when they do not, storing nothing.
    /// A publish to an unknown subscriber stores nothing (no receipt, no key).
    ///
    /// A publish of an event (``DeliveryContent/event(_:)``) sent now, queued or without audience,
    /// is also announced to every node's Server-Sent Events listeners, as ``StoreRuntime/announce(_:)``
    /// would, once it is committed; a failure to announce costs listeners that event, never the
    /// publish. A store may announce within the publish's own statement.
    func enqueue(_ publish: PublishRequest, now: Int64) async throws -> EnqueueResult

    /// The receipt of the publish `id`, or `nil` when there is none (unknown, or pruned).
    func receipt(of id: String) async throws -> PublishStatus?

    /// Cancels a publish that is still scheduled.
    func cancelPublish(_ id: String, now: Int64) async throws -> CancelResult

    /// Releases up to `limit` scheduled publishes due at `now` (Unix seconds), oldest first, each
    /// as an immediate publish would be enqueued, in one transaction.
    /// - Returns: what each released publish sends, for its Server-Sent Events listeners.
    func releaseScheduledPublishes(now: Int64, limit: Int) async throws -> [DeliveryContent]

    /// Deletes the receipts of publishes finished (or cancelled) before `finishedBefore`, forgets
    /// idempotency keys of publishes made before `keysBefore`, and marks `done` the publishes that
    /// have no job and no retry left but were never settled again (their last retries went with
    /// a deleted subscriber), all in Unix seconds.
    func pruneReceipts(finishedBefore: Int64, keysBefore: Int64, now: Int64) async throws
}

/// A publish to accept with a receipt.
public struct PublishRequest: Sendable, Equatable {
    /// Who it goes to.
    public var audience: PublishAudience
    /// What is sent; its ``DeliveryContent/publishID`` is the receipt's id.
    public var content: DeliveryContent
    /// The front-end it came through.
    public var origin: DeliveryOrigin
    /// The event name the receipt shows.
    public var event: String
    /// When it is due (Unix seconds); `nil` or not later than now: at once.
    public var dueAt: Int64?
    /// The client's idempotency key, if it sent one.
    public var idempotency: IdempotencyClaim?

    /// Creates a request.
    public init(
        audience: PublishAudience, content: DeliveryContent, origin: DeliveryOrigin, event: String, dueAt: Int64? = nil,
        idempotency: IdempotencyClaim? = nil
    ) {
        self.audience = audience
        self.content = content
        self.origin = origin
        self.event = event
        self.dueAt = dueAt
        self.idempotency = idempotency
    }

    /// The receipt's id: the content's publish id.
    public var id: String { content.publishID ?? "" }
}

/// An idempotency key and what it must match.
public struct IdempotencyClaim: Sendable, Equatable {
    /// The client's key (one per server, whatever the event).
    public var key: String
    /// A digest of what was asked (the event and the body): a repeat must match it.
    public var fingerprint: String
    /// Keys stored by publishes made before this (Unix seconds) have expired.
    public var since: Int64

    /// Creates a claim.
    public init(key: String, fingerprint: String, since: Int64) {
        self.key = key
        self.fingerprint = fingerprint
        self.since = since
    }
}

/// Where a publish is in its life.
public enum PublishState: String, Sendable, Equatable {
    /// Waiting for its due time.
    case scheduled
    /// Accepted and being delivered: jobs or retries of it remain.
    case fanningOut = "fanning_out"
    /// Every delivery is final.
    case done
    /// Cancelled while scheduled; nothing was sent.
    case cancelled
}

/// A publish's receipt as read.
public struct PublishStatus: Sendable, Equatable {
    /// The publish id.
    public var id: String
    /// The event it was published to.
    public var event: String
    /// Where it is.
    public var state: PublishState
    /// Its audience: an estimate (the subscriptions counted when it was accepted) while it fans
    /// out, the members reached once it is done.
    public var audience: Int64
    /// Members whose first attempt was settled (delivered, failed, skipped or waiting for a retry).
    public var reached: Int64
    /// Deliveries the push services accepted.
    public var delivered: Int64
    /// Deliveries that failed for good.
    public var failed: Int64
    /// Deliveries not sent by design (a silent notification a provider cannot carry).
    public var skipped: Int64
    /// Deliveries waiting for a retry.
    public var retrying: Int64
    /// Failures kept as dead letters.
    public var deadLettered: Int64
    /// Failures by reason.
    public var failures: [String: Int64]
    /// Unix seconds when it was accepted.
    public var created: Int64
    /// Unix seconds it was scheduled for, `nil` for an immediate publish.
    public var scheduledAt: Int64?
    /// Unix seconds when its fan-out started.
    public var started: Int64?
    /// Unix seconds when it became `done` or `cancelled`.
    public var finished: Int64?

    /// Creates a status.
    public init(
        id: String, event: String, state: PublishState, audience: Int64, reached: Int64 = 0, delivered: Int64 = 0, failed: Int64 = 0,
        skipped: Int64 = 0, retrying: Int64 = 0, deadLettered: Int64 = 0, failures: [String: Int64] = [:], created: Int64,
        scheduledAt: Int64? = nil, started: Int64? = nil, finished: Int64? = nil
    ) {
        self.id = id
        self.event = event
        self.state = state
        self.audience = audience
        self.reached = reached
        self.delivered = delivered
        self.failed = failed
        self.skipped = skipped
        self.retrying = retrying
        self.deadLettered = deadLettered
        self.failures = failures
        self.created = created
        self.scheduledAt = scheduledAt
        self.started = started
        self.finished = finished
    }

    /// Deliveries neither settled nor waiting for a retry: none once it is done.
    public var pending: Int64 {
        guard state == .fanningOut else { return 0 }
        return max(0, audience - delivered - failed - skipped - retrying)
    }
}

/// The answer to a cancellation.
public enum CancelResult: Sendable, Equatable {
    /// It was scheduled; it is cancelled now.
    case cancelled
    /// It has started (or finished, or was cancelled before): nothing changed.
    case notScheduled(PublishState)
    /// No such publish.
    case unknown
}

/// What a group of outcomes adds to one publish's receipt.
public struct ReceiptProgress: Sendable, Equatable {
    /// First attempts settled.
    public var reached = 0
    /// Delivered.
    public var delivered = 0
    /// Failed for good.
    public var failed = 0
    /// Not sent by design.
    public var skipped = 0
    /// Failures kept as dead letters.
    public var deadLettered = 0
    /// Failures by reason.
    public var failures: [String: Int] = [:]

    /// No progress.
    public init() {}
}

/// A publish's receipt as stored, for copying it into another store (`herald migrate`).
public struct PublishRecord: Sendable, Equatable {
    /// The receipt (its ``PublishStatus/retrying`` is not stored: it is counted from the queue).
    public var status: PublishStatus
    /// Its idempotency key and the fingerprint a repeat must match, if it had one.
    public var idempotency: (key: String, fingerprint: String)?
    /// What a scheduled publish will send once due; `nil` once released.
    public var scheduled: ScheduledContent?

    /// Creates a record.
    public init(status: PublishStatus, idempotency: (key: String, fingerprint: String)? = nil, scheduled: ScheduledContent? = nil) {
        self.status = status
        self.idempotency = idempotency
        self.scheduled = scheduled
    }

    public static func == (lhs: PublishRecord, rhs: PublishRecord) -> Bool {
        lhs.status == rhs.status && lhs.idempotency?.key == rhs.idempotency?.key
            && lhs.idempotency?.fingerprint == rhs.idempotency?.fingerprint && lhs.scheduled == rhs.scheduled
    }
}

/// What a scheduled publish holds until it is released.
public struct ScheduledContent: Sendable, Equatable {
    /// Who it goes to (resolved when it is released).
    public var audience: PublishAudience
    /// The front-end it came through.
    public var origin: DeliveryOrigin
    /// What it sends.
    public var content: DeliveryContent

    /// Creates scheduled content.
    public init(audience: PublishAudience, origin: DeliveryOrigin, content: DeliveryContent) {
        self.audience = audience
        self.origin = origin
        self.content = content
    }
}
