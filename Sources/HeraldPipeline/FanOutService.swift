import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Claims publish jobs and hands each job's audience over to the providers, page by page.
///
/// A job's audience is read in keyset pages of `batchSize`. A page is read once the job's
/// window (`inFlight` deliveries handed over and not yet answered) has room for it; each
/// delivery gives its slot back when its answer arrives, so a slow delivery keeps only its own
/// slot and the window moves on past it. The settler checkpoints the job with its outcomes:
/// the last member handed over and those still unanswered. After a crash the job is claimed again
/// once its lease expires, sends the unanswered again and continues after the cursor, so every
/// subscriber is served at least once and at most the window is sent twice.
///
/// Once a job's audience is all handed over, its worker claims the next job; the job's last
/// deliveries finish (and the job is removed) without holding a worker.
public struct FanOutService: Service, CustomStringConvertible {
    public var description: String { "FanOutService" }

    private let store: any PublishQueue & DeliverySettlement
    private let engine: DeliveryEngine
    private let policy: DeliveryPolicy
    private let wakeUp: WakeUpSignal
    private let owner: String
    private let logger: Logger

    /// Creates the service; `owner` identifies this process in leases.
    public init(store: any PublishQueue & DeliverySettlement, engine: DeliveryEngine, wakeUp: WakeUpSignal, owner: String, logger: Logger) {
        self.store = store
        self.engine = engine
        self.policy = engine.policy
        self.wakeUp = wakeUp
        self.owner = owner
        self.logger = logger
    }

    public func run() async throws {
        // Workers stop handing work over on graceful shutdown; what is in flight is the delivery
        // tasks' to finish, and the settler's to checkpoint.
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<max(1, policy.concurrentJobs) {
                group.addTask { await self.workerLoop(worker) }
            }
            await group.waitForAll()
        }
    }

    private func workerLoop(_ worker: Int) async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let lease = Lease(owner: owner, expiresAt: engine.clock.nowMillis() + policy.leaseDuration.milliseconds)
                if let job = try await store.claimJobs(limit: 1, lease: lease, nowMillis: engine.clock.nowMillis()).first {
                    try await cancelWhenGracefulShutdown { try await handOver(job) }
                } else {
                    await cancelWhenGracefulShutdown { await wakeUp.wait(timeout: policy.pollInterval) }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.error("fan-out failed; will retry", metadata: ["error": "\(error)", "worker": "\(worker)"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            }
        }
    }

    /// Hands the job's audience over: first what a previous worker left unanswered, then every
    /// page after the cursor.
    private func handOver(_ job: PublishJob) async throws {
        let pageSize = min(policy.batchSize, max(1, policy.inFlight))
        var job = job
        let shareable = isShareable(job)
        // What the last checkpoint left unanswered: a range is read before tracking starts (it
        // is about a window's worth); a list is read page by page below.
        var listed: [SubscriberID] = []
        var inRange: [AudienceMember] = []
        switch job.pending {
        case .listed(let ids):
            listed = ids
        case .range(let after, let except):
            inRange = try await members(of: job, after: after, except: Set(except), pageSize: pageSize)
        }
        let tracker = JobTracker(job: job, resent: listed + inRange.map(\.subscriber.id), inFlight: policy.inFlight)
        engine.settler.track(tracker)
        let warned = Mutex<Set<String>>([])
        let deliver: @Sendable ([AudienceMember]) async -> Void = { [engine, logger, jobID = job.id] page in
            for name in await engine.deliverPage(page, of: tracker) where warned.withLock({ $0.insert(name).inserted }) {
                logger.warning("subscribers of a provider that is not configured were skipped", metadata: [
                    "provider": "\(name)", "job": "\(jobID)",
                ])
            }
        }

        var resendRange = inRange[...]
        while !resendRange.isEmpty && !tracker.leaseLost {
            let page = Array(resendRange.prefix(pageSize))
            resendRange = resendRange.dropFirst(page.count)
            try await tracker.window.acquire(page.count)
            engine.tasks.submit { await deliver(page) }
        }
        var resendListed = listed[...]
        while !resendListed.isEmpty && !tracker.leaseLost {
            let ids = Array(resendListed.prefix(pageSize))
            resendListed = resendListed.dropFirst(ids.count)
            try await tracker.window.acquire(ids.count)
            let members = try await persistently { try await store.members(of: job, among: ids) }
            let found = Set(members.map(\.subscriber.id))
            // Settled with nothing to record; their slots come back like any settled delivery's.
            let gone = ids.filter { !found.contains($0) }
            if !gone.isEmpty { engine.settler.submit(job: tracker, settled: gone, retries: 0) { _ in } }
            if !members.isEmpty { engine.tasks.submit { await deliver(members) } }
        }

        // The store may increment these members' badges as it reads each page (one step instead
        // of two on PostgreSQL); the engine increments those it did not.
        let counting = engine.badgeCountingProviders(for: job.content)
        var cursor = job.cursor
        var first = true
        // The store cuts a part of a shared publish at its end: the next part is another job's.
        func read(holdingSlots: Bool = false) async throws -> [AudienceMember] {
            await engine.settler.waitForRoom(below: 2 * policy.inFlight)
            if !holdingSlots { try await tracker.window.acquire(pageSize) }
            return try await persistently { [job, cursor] in
                try await store.audience(of: job, after: cursor, limit: pageSize, incrementingBadgesOf: counting)
            }
        }
        func handOver(_ page: [AudienceMember]) -> PageHandOver {
            tracker.window.release(pageSize - page.count)
            guard let last = page.last?.subscriber.id else { return .end }
            // Each id read in place: a key path over the members copied each one whole (its
            // subscriber's strings retained and released) for one field.
            tracker.handOver(page.indices.lazy.map { page[$0].subscriber.id }, through: last)
            cursor = last
            if first && job.pending.isEmpty { engine.warmUp(for: page) }
            first = false
            guard engine.tasks.submit({ [page] in await deliver(page) }) else { return .refused }
            return page.count < pageSize || job.end.map({ last >= $0 }) == true ? .end : .more
        }

        var next = PageHandOver.more
        if shareable && !tracker.leaseLost {
            // The cuts are chosen while the first pages are read, and those pages are the first
            // part's whether the publish is shared out or not. Until the cuts are chosen, pages are
            // read as long as the window has room at once, so that deliveries need not wait for
            // the cuts: their walk of the whole audience took 46-100 ms for 100,000 members, while
            // a page alone in flight was answered in about 20. With the window full the cuts are
            // awaited rather than room, so that other nodes are not kept waiting for this one's
            // answers; what follows the pages read is then shared out.
            let untouched = job
            let chosen = OneWayFlag()
            async let candidates = sharingCandidates(of: untouched, then: chosen)
            next = handOver(try await read())
            while next == .more && !tracker.leaseLost && !chosen.isSet && tracker.window.tryAcquire(pageSize) {
                next = handOver(try await read(holdingSlots: true))
            }
            if next == .more && !tracker.leaseLost, let last = cursor {
                let cuts = Self.cuts(
                    of: try await candidates, after: last, workers: max(1, policy.concurrentJobs), maxParts: policy.maxSharedParts)
                job.end = try await share(untouched, at: cuts, afterPagesThrough: last)
            }
        }
        while next == .more && !tracker.leaseLost {
            next = handOver(try await read())
        }
        if next == .refused { return }
        guard !tracker.leaseLost else { return }
        tracker.finishReading()
        engine.settler.wake()
        logger.debug("publish handed over", metadata: ["job": "\(job.id)", "event": "\(job.content.eventName)"])
    }

    /// What handing a page over left to do.
    private enum PageHandOver {
        /// Read the next page.
        case more
        /// The job's audience (or its part) is all handed over.
        case end
        /// The delivery tasks refused the page: the service is stopping.
        case refused
    }

    /// Whether the job is an untouched publish that may be shared out among the workers of every
    /// node (``DeliveryPolicy/sharedPartSize``).
    private func isShareable(_ job: PublishJob) -> Bool {
        guard let partSize = policy.sharedPartSize, partSize > 0 else { return false }
        return job.cursor == nil && job.pending.isEmpty && job.end == nil
    }

    /// Candidate cuts of a shareable job's audience, a unit (an eighth of a part) apart; none
    /// when it fits one unit. Sets `chosen` when they are known.
    ///
    /// A failure here only costs the sharing: the job is then sent whole by this worker.
    private func sharingCandidates(of job: PublishJob, then chosen: OneWayFlag) async throws -> [SubscriberID] {
        defer { chosen.set() }
        guard let partSize = policy.sharedPartSize else { return [] }
        do {
            // Up to sixteen times more candidates than parts kept: fine enough that the parts
            // kept come out of equal size, whatever their number.
            return try await store.audienceBoundaries(
                of: job, every: max(1, partSize / Self.unitsPerPart), limit: max(1, policy.maxSharedParts) * Self.unitsPerPart * 16)
        } catch let error as CancellationError {
            throw error
        } catch {
            logger.warning("sharing a publish out failed; sending it whole", metadata: ["job": "\(job.id)", "error": "\(error)"])
            return []
        }
    }

    /// Where to cut what follows `last` (the last member read) into parts, from the ascending
    /// candidate cuts a unit apart: the candidates not yet read, thinned to the number of parts
    /// that their units make. The pages read belong to the first part, which ends at the first
    /// cut kept.
    static func cuts(of candidates: [SubscriberID], after last: SubscriberID, workers: Int, maxParts: Int) -> [SubscriberID] {
        let ahead = Array(candidates.drop { $0 <= last })
        return evenlyThinned(ahead, to: partCount(units: ahead.count + 1, workers: workers, maxParts: maxParts) - 1)
    }

    /// Shares the job out as parts that start at `cuts`, after its pages were read up to `last`;
    /// returns the end of the part this worker keeps, or `nil` when the job stays whole.
    ///
    /// A failure here only costs the sharing: the job is then sent whole by this worker.
    private func share(_ job: PublishJob, at cuts: [SubscriberID], afterPagesThrough last: SubscriberID) async throws -> SubscriberID? {
        // A first cut inside the pages read would give its members to two parts.
        guard let first = cuts.first, last < first else { return nil }
        do {
            let lease = Lease(owner: owner, expiresAt: engine.clock.nowMillis() + policy.leaseDuration.milliseconds)
            guard try await store.shareJob(jobID: job.id, boundaries: cuts, lease: lease) else { return nil }
            logger.debug("publish shared out", metadata: ["job": "\(job.id)", "parts": "\(cuts.count + 1)"])
            return first
        } catch let error as CancellationError {
            throw error
        } catch {
            logger.warning("sharing a publish out failed; sending it whole", metadata: ["job": "\(job.id)", "error": "\(error)"])
            return nil
        }
    }

    /// Candidate units (equal runs of members) in one part of ``DeliveryPolicy/sharedPartSize``.
    static let unitsPerPart = 8

    /// How many parts a publish of `units` candidate units is cut into.
    ///
    /// Parts are about ``DeliveryPolicy/sharedPartSize`` (``unitsPerPart`` units), at most
    /// `maxParts`, and their number is a multiple of `workers` (one node's publish workers) when
    /// there are more: parts are claimed in rounds, and a last round of fewer parts than workers
    /// leaves workers idle while it lasts (ten parts for four workers took a tenth longer than
    /// eight larger ones). A publish of fewer parts is still cut for every worker, into parts
    /// of at least half that size.
    static func partCount(units: Int, workers: Int, maxParts: Int) -> Int {
        let parts = min((units + unitsPerPart - 1) / unitsPerPart, maxParts)
        guard parts > workers else {
            return max(1, min(workers, units / (unitsPerPart / 2), maxParts))
        }
        return parts - parts % workers
    }

    /// `count` of `cuts` (all of them when there are no more), chosen so that the `count + 1`
    /// parts they make hold as equal a number of the `cuts.count + 1` parts they came from as
    /// whole numbers allow.
    static func evenlyThinned(_ cuts: [SubscriberID], to count: Int) -> [SubscriberID] {
        guard cuts.count > count else { return cuts }
        guard count > 0 else { return [] }
        return (1...count).map { cuts[$0 * (cuts.count + 1) / (count + 1) - 1] }
    }

    /// The audience members after `after` up to the job's cursor, except `except`: the unanswered
    /// members of a checkpoint written as a range.
    private func members(of job: PublishJob, after: SubscriberID?, except: Set<SubscriberID>, pageSize: Int) async throws -> [AudienceMember] {
        guard let end = job.cursor else { return [] }
        var members: [AudienceMember] = []
        var position = after
        while true {
            let page = try await persistently { [position] in try await store.audience(of: job, after: position, limit: pageSize) }
            for member in page where member.subscriber.id <= end && !except.contains(member.subscriber.id) {
                members.append(member)
            }
            guard let last = page.last?.subscriber.id, last < end, page.count == pageSize else { return members }
            position = last
        }
    }

    /// Runs a read until it succeeds: the job's deliveries in flight keep its lease alive, so a
    /// worker that gave up on it would leave it unfinished until the next start.
    ///
    /// - Throws: only `CancellationError`.
    private func persistently<T>(_ read: () async throws -> T) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await read()
            } catch let error as CancellationError {
                throw error
            } catch {
                failures += 1
                logger.error("reading a publish's audience failed; will try again", metadata: ["error": "\(error)", "attempt": "\(failures)"])
                try await Task.sleep(for: .seconds(min(failures, 5)))
            }
        }
    }
}
