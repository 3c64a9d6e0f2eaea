import HeraldCore

/// What a failed delivery needs to be sent again: the publication as it was, and its history.
public struct DeadLetterContent: Sendable, Equatable {
    /// What was published, counted in no receipt (``Publication/withoutReceipt``).
    public var publication: Publication
    /// Whether the subscription was silent.
    public var silent: Bool
    /// The badge sent, if any.
    public var badge: Int?
    /// Attempts made.
    public var attempts: Int
    /// The delivery's own attempt limit, if its sender set one (kept for a replay).
    public var maxAttempts: Int?

    /// Creates the content of a dead letter; the publication's receipt is not kept.
    public init(publication: Publication, silent: Bool, badge: Int?, attempts: Int, maxAttempts: Int? = nil) {
        self.publication = publication.withoutReceipt
        self.silent = silent
        self.badge = badge
        self.attempts = attempts
        self.maxAttempts = maxAttempts
    }

    /// What was sent.
    public var notification: DeliveryContent { publication.content }
    /// Unix seconds when it was published.
    public var publishedAt: Int64 { publication.publishedAt }
}

/// A delivery that failed for good (a permanent failure, or retries that ran out), kept so that an
/// operator can see what was lost and why, and send it again.
public struct DeadLetter: Sendable, Equatable {
    /// Increasing id: a cursor for readers.
    public var id: Int64
    /// Unix seconds when it was given up.
    public var time: Int64
    /// The subscriber (`nil`: a raw token).
    public var subscriberID: SubscriberID?
    /// The provider name.
    public var proto: String
    /// The token it was sent to.
    public var token: String
    /// The service's HTTP status, if any.
    public var status: Int?
    /// The last failure's reason.
    public var reason: String
    /// The publication and the delivery's history.
    public var content: DeadLetterContent

    /// Creates a dead letter.
    public init(
        id: Int64 = 0, time: Int64, subscriberID: SubscriberID?, proto: String, token: String, status: Int?, reason: String,
        content: DeadLetterContent
    ) {
        self.id = id
        self.time = time
        self.subscriberID = subscriberID
        self.proto = proto
        self.token = token
        self.status = status
        self.reason = reason
        self.content = content
    }

    /// The front-end the delivery came through.
    public var origin: DeliveryOrigin { content.publication.origin }
    /// The statistics row it counted in (`nil`: `/test`).
    public var statisticsEvent: EventName? { content.publication.statisticsEvent }
}

/// Which dead letters a listing, a replay or a deletion applies to; every given field must match.
public struct DeadLetterFilter: Sendable, Equatable {
    /// Exactly these ids.
    public var ids: [Int64]?
    /// Of this provider.
    public var proto: String?
    /// Of notifications published to this event name (the notification's `event`, a prepared payload's label).
    public var event: String?
    /// Of deliveries that came through this front-end.
    public var origin: DeliveryOrigin?
    /// Given up at or after this Unix time (seconds).
    public var since: Int64?
    /// Given up before this Unix time (seconds).
    public var until: Int64?

    /// Creates a filter; with no argument it matches everything.
    public init(
        ids: [Int64]? = nil, proto: String? = nil, event: String? = nil, origin: DeliveryOrigin? = nil, since: Int64? = nil, until: Int64? = nil
    ) {
        self.ids = ids
        self.origin = origin
        self.proto = proto
        self.event = event
        self.since = since
        self.until = until
    }

    /// Whether the filter selects anything narrower than "all".
    public var isRestrictive: Bool { ids != nil || proto != nil || event != nil || origin != nil || since != nil || until != nil }
}

/// What a replay did.
public struct DeadLetterReplay: Sendable, Equatable {
    /// Dead letters turned back into pending deliveries (and removed from the dead letters).
    public var replayed: Int
    /// Dead letters left where they were because their subscriber no longer exists (raw tokens are always replayed).
    public var orphaned: Int

    /// Creates a result.
    public init(replayed: Int, orphaned: Int) {
        self.replayed = replayed
        self.orphaned = orphaned
    }
}

/// Deliveries that failed for good (`GET /dead-letters`, replay, pruning).
///
/// Dead letters are written by ``FeedbackLog/record(_:maxFailures:now:)`` in the same
/// transaction as the failure they come from, so none is lost between the two.
public protocol DeadLetterStore: Sendable {
    /// Dead letters matching `filter` with id greater than `cursor`, oldest first.
    func deadLetters(matching filter: DeadLetterFilter, after cursor: Int64?, limit: Int) async throws -> [DeadLetter]

    /// Turns up to `limit` matching dead letters into retries due at `nowMillis` with a fresh
    /// attempt budget, and removes them, in one transaction.
    func replayDeadLetters(matching filter: DeadLetterFilter, limit: Int, nowMillis: Int64) async throws -> DeadLetterReplay

    /// Deletes up to `limit` matching dead letters; returns how many.
    func deleteDeadLetters(matching filter: DeadLetterFilter, limit: Int) async throws -> Int

    /// Deletes dead letters given up before `time` (Unix seconds); returns how many.
    func pruneDeadLetters(before time: Int64) async throws -> Int
}
