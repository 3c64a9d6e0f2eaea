import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Records delivery outcomes as they arrive, in group commits: what arrived over the last few
/// milliseconds, from every job and retry, goes to the store in one transaction with the
/// checkpoints of the jobs it belongs to.
///
/// An answered delivery is therefore durable within about ``DeliveryPolicy/commitInterval``
/// (plus the time the commit takes),
/// whatever its page's other deliveries are doing, and a crash sends again only what was
/// unanswered then plus the answers of that last interval. On graceful shutdown it runs last
/// and commits everything it was handed.
public final class OutcomeSettler: Service, CustomStringConvertible {
    public var description: String { "OutcomeSettler" }

    /// Outcomes gathered for the next commit.
    private struct Buffer {
        var settlement = Settlement()
        /// Per job: the members settled.
        var jobs: [ObjectIdentifier: (tracker: JobTracker, ids: [SubscriberID])] = [:]
        /// Outcomes gathered.
        var count = 0
        /// When the first of them arrived (Unix milliseconds).
        var since: Int64?
    }

    let store: any DeliverySettlement & PublishQueue
    let policy: DeliveryPolicy
    let owner: String
    let logger: Logger
    let metrics: PipelineMetrics
    let clock: WallClock
    /// Deliveries of retries in flight: a slot is given back when the retry's outcome arrives.
    let retryWindow: AsyncSemaphore
    /// Wakes the retry service when retries were scheduled, so short first delays are honoured.
    let retryWakeUp: WakeUpSignal
    private let buffer = Mutex(Buffer())
    private let trackers = Mutex<[Int64: JobTracker]>([:])
    private let wakeUp = WakeUpSignal()
    /// Wakes hand-overs waiting for the gathered outcomes to shrink.
    private let committedSignal = WakeUpSignal()

    init(
        store: any DeliverySettlement & PublishQueue, policy: DeliveryPolicy, owner: String, logger: Logger, metrics: PipelineMetrics,
        retryWakeUp: WakeUpSignal, clock: WallClock
    ) {
        self.store = store
        self.retryWakeUp = retryWakeUp
        self.policy = policy
        self.owner = owner
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.retryWindow = AsyncSemaphore(capacity: policy.inFlight)
    }

    /// Starts writing a job's checkpoints with the outcomes of its deliveries.
    func track(_ tracker: JobTracker) {
        trackers.withLock { $0[tracker.job.id] = tracker }
    }

    /// Commits soon even if nothing else arrives (a job finished reading, say).
    func wake() {
        wakeUp.notify()
    }

    /// Adds outcomes to the next commit: `body` appends their effects to the settlement; `settled`
    /// lists the job members they settle, `retries` counts the retries among them. Their window
    /// slots come back at once.
    func submit(job tracker: JobTracker?, settled: some Collection<SubscriberID>, retries: Int, _ body: (inout Settlement) -> Void) {
        let count = max(1, settled.count + retries)
        let now = clock.nowMillis()
        let wake = buffer.withLock { buffer -> Bool in
            body(&buffer.settlement)
            if let tracker {
                // In place: a copy of the entry would copy its ids on every outcome.
                buffer.jobs[ObjectIdentifier(tracker), default: (tracker, [])].ids.append(contentsOf: settled)
            }
            let first = buffer.count == 0
            buffer.count += count
            if first { buffer.since = now }
            return first || buffer.count >= policy.batchSize
        }
        if wake { wakeUp.notify() }
        if let tracker, !settled.isEmpty { tracker.window.release(settled.count) }
        retryWindow.release(retries)
    }

    /// Adds one outcome to the next commit: as ``submit(job:settled:retries:_:)`` with at most one
    /// member settled, without an array for it (this runs for every answer of a fan-out).
    func submit(job tracker: JobTracker?, settled: SubscriberID?, retries: Int, _ body: (inout Settlement) -> Void) {
        if let settled {
            submit(job: tracker, settled: CollectionOfOne(settled), retries: retries, body)
        } else {
            submit(job: tracker, settled: EmptyCollection<SubscriberID>(), retries: retries, body)
        }
    }

    /// Returns once the outcomes waiting for a commit are fewer than `limit`: a store slower than
    /// the push services holds the fan-out back instead of letting the outcomes pile up in memory.
    func waitForRoom(below limit: Int) async {
        while buffer.withLock({ $0.count }) >= limit && !Task.isCancelled {
            await committedSignal.wait(timeout: .milliseconds(50))
        }
    }

    public func run() async throws {
        var lastRenewal = clock.nowMillis()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let renewEvery = max(1, policy.leaseDuration.milliseconds / 3)
            await cancelWhenGracefulShutdown { await self.wakeUp.wait(timeout: .milliseconds(renewEvery)) }
            // Gather for up to the commit interval unless a page's worth is already waiting.
            let (count, since) = buffer.withLock { ($0.count, $0.since) }
            if count > 0, count < policy.batchSize, let since {
                let wait = since + policy.commitInterval.milliseconds - clock.nowMillis()
                if wait > 0 {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(wait)) }
                }
            }
            await commit()
            if clock.nowMillis() - lastRenewal >= renewEvery {
                lastRenewal = clock.nowMillis()
                await renewLeases()
            }
        }
        // Runs after the deliveries stopped: what they reported is recorded before the store closes.
        await commit()
        // Then this node's leases are handed back, so another node resumes its unfinished work at
        // once instead of after the leases expire.
        do {
            try await store.releaseLeases(owner: owner)
        } catch {
            logger.error("could not release leases; other nodes take the work over when they expire", metadata: ["error": "\(error)"])
        }
    }

    /// Writes what was gathered, with the checkpoints of the jobs that changed, retrying a
    /// failed write until it succeeds (or, on shutdown, a few times): nothing is taken back from
    /// the trackers, so a write that never happens leaves the deliveries pending, to be sent again.
    func commit() async {
        let (gathered, jobs) = buffer.withLock { buffer in
            defer { buffer = Buffer() }
            return (buffer.settlement, Array(buffer.jobs.values))
        }
        for job in jobs { job.tracker.settle(job.ids) }
        var settlement = gathered
        let lease = Lease(owner: owner, expiresAt: clock.nowMillis() + policy.leaseDuration.milliseconds)
        let active = trackers.withLock { Array($0.values) }
        settlement.jobs = active.compactMap { $0.checkpoint(lease: lease) }
        if !settlement.isEmpty {
            var failures = 0
            while true {
                do {
                    let summary = try await store.settle(settlement, maxFailures: policy.maxFailures, now: clock.nowSeconds())
                    report(summary, active: active)
                    break
                } catch {
                    failures += 1
                    logger.error("recording delivery outcomes failed; will try again", metadata: ["error": "\(error)", "attempt": "\(failures)"])
                    if Task.isShuttingDownGracefully && failures >= 3 { return }
                    try? await Task.sleep(for: .seconds(min(failures, 5)))
                }
            }
        }
        if !settlement.newRetries.isEmpty || !settlement.rescheduledRetries.isEmpty { retryWakeUp.notify() }
        committedSignal.notify()
        trackers.withLock { trackers in
            for tracker in active where tracker.isFinished { trackers[tracker.job.id] = nil }
        }
    }

    private func report(_ summary: SettlementSummary, active: [JobTracker]) {
        for (id, reason) in summary.unregistered {
            logger.info("subscriber unregistered", metadata: ["subscriber": "\(id)", "reason": "\(reason)"])
            metrics.recordUnregistration(reason: reason)
        }
        for jobID in summary.lostJobs {
            logger.warning("lost the lease on a publish job", metadata: ["job": "\(jobID)"])
            active.first { $0.job.id == jobID }?.loseLease()
        }
    }

    /// Keeps the leases of the work in flight: a delivery may stay unanswered longer than a lease.
    private func renewLeases() async {
        let busy = trackers.withLock { !$0.isEmpty } || retryWindow.available < retryWindow.capacity
        guard busy else { return }
        do {
            try await store.renewLeases(owner: owner, expiresAt: clock.nowMillis() + policy.leaseDuration.milliseconds)
        } catch {
            logger.error("renewing leases failed", metadata: ["error": "\(error)"])
        }
    }
}
