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

    private let store: any HeraldStore
    private let engine: DeliveryEngine
    private let policy: DeliveryPolicy
    private let wakeUp: WakeUpSignal
    private let owner: String
    private let logger: Logger

    /// Creates the service; `owner` identifies this process in leases.
    public init(store: any HeraldStore, engine: DeliveryEngine, wakeUp: WakeUpSignal, owner: String, logger: Logger) {
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
        let job = try await share(job)
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
        let deliver: @Sendable ([AudienceMember]) async -> Void = { [engine, logger] page in
            for name in await engine.deliverPage(page, of: tracker) where warned.withLock({ $0.insert(name).inserted }) {
                logger.warning("subscribers of a provider that is not configured were skipped", metadata: [
                    "provider": "\(name)", "job": "\(job.id)",
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
        while !tracker.leaseLost {
            await engine.settler.waitForRoom(below: 2 * policy.inFlight)
            try await tracker.window.acquire(pageSize)
            // The store cuts a part of a shared publish at its end: the next part is another job's.
            let page = try await persistently { [cursor] in
                try await store.audience(of: job, after: cursor, limit: pageSize, incrementingBadgesOf: counting)
            }
            tracker.window.release(pageSize - page.count)
            guard let last = page.last?.subscriber.id else { break }
            let reachedEnd = job.end.map { last >= $0 } ?? false
            tracker.handOver(page.lazy.map(\.subscriber.id), through: last)
            cursor = last
            if first && job.pending.isEmpty { engine.warmUp(for: page) }
            first = false
            if !engine.tasks.submit({ [page] in await deliver(page) }) { return }
            if reachedEnd || page.count < pageSize { break }
        }
        guard !tracker.leaseLost else { return }
        tracker.finishReading()
        engine.settler.wake()
        logger.debug("publish handed over", metadata: ["job": "\(job.id)", "event": "\(job.content.eventName)"])
    }

    /// Shares an untouched publish out among the workers of every node when its audience spans
    /// several parts (``DeliveryPolicy/sharedPartSize``); returns the job as this worker keeps it.
    ///
    /// A failure here only costs the sharing: the job is then sent whole by this worker.
    private func share(_ job: PublishJob) async throws -> PublishJob {
        guard let partSize = policy.sharedPartSize, partSize > 0, job.cursor == nil, job.pending.isEmpty, job.end == nil else {
            return job
        }
        do {
            let cuts = max(0, policy.maxSharedParts - 1)
            // Up to sixteen times more cuts than kept, thinned out evenly: an audience of more than
            // `maxSharedParts` parts gets larger parts of equal size rather than one huge last part.
            let candidates = try await store.audienceBoundaries(of: job, every: partSize, limit: cuts * 16)
            let boundaries = Self.evenlyThinned(candidates, to: cuts)
            guard let first = boundaries.first else { return job }
            let lease = Lease(owner: owner, expiresAt: engine.clock.nowMillis() + policy.leaseDuration.milliseconds)
            guard try await store.shareJob(jobID: job.id, boundaries: boundaries, lease: lease) else { return job }
            logger.debug("publish shared out", metadata: ["job": "\(job.id)", "parts": "\(boundaries.count + 1)"])
            var kept = job
            kept.end = first
            return kept
        } catch let error as CancellationError {
            throw error
        } catch {
            logger.warning("sharing a publish out failed; sending it whole", metadata: ["job": "\(job.id)", "error": "\(error)"])
            return job
        }
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
