import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Deletes dead letters and feedback entries older than their retention, at start and then periodically.
public struct PruneService: Service, CustomStringConvertible {
    public var description: String { "PruneService" }

    private let store: any HeraldStore
    private let policy: DeliveryPolicy
    private let logger: Logger
    private let clock: WallClock

    /// Creates the service.
    public init(store: any HeraldStore, policy: DeliveryPolicy, logger: Logger) {
        self.store = store
        self.policy = policy
        self.logger = logger
        self.clock = store.clock
    }

    public func run() async throws {
        guard policy.deadLetterRetention != nil || policy.feedbackRetention != nil else {
            // A service that returns early would stop the whole group; idle until shutdown instead.
            try? await gracefulShutdown()
            return
        }
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
        } catch {
            logger.error("pruning failed; will try again", metadata: ["error": "\(error)"])
        }
    }
}
