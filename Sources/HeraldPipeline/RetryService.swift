import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Claims due deliveries from the store's delivery queue (retries, raw sends, replayed dead
/// letters) and makes them, until they succeed or run out of attempts.
///
/// Claimed deliveries are handed to the delivery tasks within a window of `inFlight`; a slot comes
/// back once the retry's outcome is committed, so retries of a destination that hangs hold only
/// their own slots while the others go on.
public struct RetryService: Service, CustomStringConvertible {
    public var description: String { "RetryService" }

    private let store: any RetryQueue
    private let engine: DeliveryEngine
    private let policy: DeliveryPolicy
    private let wakeUp: WakeUpSignal
    private let owner: String
    private let logger: Logger

    /// Retries claimed per round.
    private let claimLimit = 200

    /// Creates the service; `owner` identifies this process in leases. It wakes on the engine's retry signal.
    public init(store: any RetryQueue, engine: DeliveryEngine, owner: String, logger: Logger) {
        self.store = store
        self.engine = engine
        self.policy = engine.policy
        self.wakeUp = engine.retryWakeUp
        self.owner = owner
        self.logger = logger
    }

    public func run() async throws {
        let window = engine.settler.retryWindow
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var slots = 0
            do {
                try await cancelWhenGracefulShutdown { try await window.acquire(1) }
                slots = 1
                while slots < claimLimit && window.tryAcquire(1) { slots += 1 }
                let now = engine.clock.nowMillis()
                let lease = Lease(owner: owner, expiresAt: now + policy.leaseDuration.milliseconds)
                let due = try await store.claimDueRetries(limit: slots, lease: lease, nowMillis: now)
                window.release(slots - due.count)
                slots = 0
                if !due.isEmpty {
                    if !engine.tasks.submit({ [engine] in await engine.deliverRetries(due) }) { return }
                    continue
                }
                var wait = policy.pollInterval
                if let next = try await store.nextRetryDue() {
                    let until = Duration.milliseconds(max(0, next - engine.clock.nowMillis()))
                    if until < wait { wait = until }
                }
                if wait > .zero {
                    let timeout = wait
                    await cancelWhenGracefulShutdown { await wakeUp.wait(timeout: timeout) }
                }
            } catch {
                window.release(slots)
                if error is CancellationError { continue }
                logger.error("retrying deliveries failed; will try again", metadata: ["error": "\(error)"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            }
        }
    }
}
