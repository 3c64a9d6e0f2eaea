import HeraldCore

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
