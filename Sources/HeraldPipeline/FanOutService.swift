import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Claims publish jobs and fans each out to its audience, page by page, checkpointing as it goes.
///
/// A job's audience is read in keyset pages of `batchSize`; up to `inFlight / batchSize`
/// pages are delivered at once, and the cursor advances only over the prefix of
/// pages whose outcomes are all recorded. After a crash the job is claimed again
/// once its lease expires and resumes after the cursor, so every subscriber is
/// served at least once and at most `inFlight` deliveries are repeated.
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
        // Workers stop claiming on graceful shutdown; a job in progress stops at its next page
        // boundary with its cursor checkpointed, so nothing accepted is lost. Pages still in flight
        // after the grace period are abandoned uncheckpointed and resumed by the next start.
        await withShutdownGracePeriod(policy.shutdownGracePeriod) {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<max(1, policy.concurrentJobs) {
                    group.addTask { await self.workerLoop(worker) }
                }
                await group.waitForAll()
            }
        }
    }

    private func workerLoop(_ worker: Int) async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let lease = Lease(owner: owner, expiresAt: Clock.nowMillis() + policy.leaseDuration.milliseconds)
                if let job = try await store.claimJobs(limit: 1, lease: lease, nowMillis: Clock.nowMillis()).first {
                    try await fanOut(job)
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

    private func fanOut(_ job: PublishJob) async throws {
        let started = Clock.nowMillis()
        var fetchCursor = job.cursor
        var exhausted = false
        var nextPage = 0
        var nextToCommit = 0
        var completed: [Int: SubscriberID] = [:]
        var unknownProviders: Set<String> = []
        var delivered = 0
        var leaseLost = false

        try await withThrowingTaskGroup(of: (Int, SubscriberID, Set<String>, Int).self) { group in
            while true {
                // Pages not yet checkpointed (in flight, or done but behind a slower page) are bounded,
                // which bounds the deliveries a crash can repeat.
                while !exhausted && !leaseLost && nextPage - nextToCommit < policy.pagesInFlight && !Task.isShuttingDownGracefully {
                    let page = try await store.audience(of: job, after: fetchCursor, limit: policy.batchSize)
                    guard let last = page.last?.subscriber.id else {
                        exhausted = true
                        break
                    }
                    if page.count < policy.batchSize { exhausted = true }
                    fetchCursor = last
                    let index = nextPage
                    nextPage += 1
                    if index == 0 { engine.warmUp(for: page) }
                    group.addTask {
                        let unknown = try await engine.deliverPage(page, of: job)
                        return (index, last, unknown, page.count)
                    }
                }
                guard let (index, last, unknown, count) = try await group.next() else { break }
                delivered += count
                completed[index] = last
                for name in unknown where !unknownProviders.contains(name) {
                    unknownProviders.insert(name)
                    logger.warning("subscribers of a provider that is not configured were skipped", metadata: [
                        "provider": "\(name)", "job": "\(job.id)",
                    ])
                }
                var cursor: SubscriberID?
                while let pageLast = completed.removeValue(forKey: nextToCommit) {
                    cursor = pageLast
                    nextToCommit += 1
                }
                if let cursor, !leaseLost {
                    let lease = Lease(owner: owner, expiresAt: Clock.nowMillis() + policy.leaseDuration.milliseconds)
                    if try await !store.checkpoint(jobID: job.id, cursor: cursor, lease: lease) {
                        // Another worker owns the job now; let it finish the rest.
                        leaseLost = true
                        logger.warning("lost the lease on a publish job", metadata: ["job": "\(job.id)"])
                    }
                }
            }
        }
        if exhausted && !leaseLost && !Task.isShuttingDownGracefully {
            try await store.completeJob(jobID: job.id, owner: owner)
            logger.debug("publish fanned out", metadata: [
                "job": "\(job.id)", "event": "\(job.notification.event)", "subscribers": "\(delivered)",
                "milliseconds": "\(Clock.nowMillis() - started)",
            ])
        }
    }
}
