import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Releases scheduled publishes when they are due: each becomes a publish job (on whichever node
/// releases it first) and is announced to Server-Sent Events listeners.
///
/// Due times have a precision of one second, so the service asks the store once a second; the
/// question is one indexed read, and costs nothing when nothing is scheduled.
public struct ScheduleService: Service, CustomStringConvertible {
    public var description: String { "ScheduleService" }

    private let store: any PublishReceipts & StoreRuntime
    private let logger: Logger
    private let clock: WallClock
    /// Publishes released per transaction.
    static let batch = 100

    /// Creates the service.
    public init(store: any PublishReceipts & StoreRuntime, logger: Logger) {
        self.store = store
        self.logger = logger
        self.clock = store.clock
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await releaseDue()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
    }

    /// Releases everything due now, a batch per transaction.
    func releaseDue() async {
        do {
            while true {
                let released = try await store.releaseScheduledPublishes(now: clock.nowSeconds(), limit: Self.batch)
                for content in released {
                    logger.info("released a scheduled publish", metadata: ["publish": "\(content.publishID ?? "-")"])
                    guard case .event(let event) = content else { continue }
                    do {
                        try await store.announce(event)
                    } catch {
                        logger.warning("cannot announce an event to its listeners", metadata: ["error": "\(error)", "event": "\(event.event)"])
                    }
                }
                if released.count < Self.batch { return }
            }
        } catch {
            logger.error("releasing scheduled publishes failed; will try again", metadata: ["error": "\(error)"])
        }
    }
}
