import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Deletes dead letters, feedback entries and publish receipts older than their retention and
/// forgets expired idempotency and delivery keys, at start and then periodically.
public struct PruneService: Service, CustomStringConvertible {
    public var description: String { "PruneService" }

    private let store: any FeedbackLog & DeadLetterStore & PublishReceipts & RetryQueue & StoreRuntime
    private let policy: DeliveryPolicy
    private let logger: Logger
    private let clock: WallClock

    /// Creates the service.
    public init(store: any FeedbackLog & DeadLetterStore & PublishReceipts & RetryQueue & StoreRuntime, policy: DeliveryPolicy, logger: Logger) {
        self.store = store
        self.policy = policy
        self.logger = logger
        self.clock = store.clock
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await pruneOnce()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: policy.pruneInterval) }
        }
    }

    /// One pass: each table pruned in its own transaction (a failure is logged and tried next time).
    func pruneOnce() async {
        let now = clock.nowSeconds()
        do {
            if let retention = policy.deadLetterRetention {
                let removed = try await store.pruneDeadLetters(before: now - retention.milliseconds / 1000)
                if removed > 0 { logger.info("pruned dead letters", metadata: ["count": "\(removed)"]) }
            }
            if let retention = policy.feedbackRetention {
                let removed = try await store.pruneFeedback(before: now - retention.milliseconds / 1000)
                if removed > 0 { logger.info("pruned feedback entries", metadata: ["count": "\(removed)"]) }
            }
            let receiptsBefore = policy.receiptRetention.map { now - $0.milliseconds / 1000 } ?? .min
            try await store.pruneReceipts(finishedBefore: receiptsBefore, keysBefore: now - policy.idempotencyWindow.milliseconds / 1000, now: now)
            _ = try await store.pruneDeliveryKeys(now: now)
        } catch {
            logger.error("pruning failed; will try again", metadata: ["error": "\(error)"])
        }
    }
}
