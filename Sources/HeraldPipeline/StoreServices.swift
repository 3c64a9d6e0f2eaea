import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Runs what the store owns (``StoreRuntime/run()``) as a service. First in the group, so it
/// stops last, after every part that uses the store.
public struct StoreService: Service, CustomStringConvertible {
    public var description: String { "StoreService" }

    private let store: any StoreRuntime

    /// Creates the service.
    public init(store: any StoreRuntime) {
        self.store = store
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await store.run() }
        } catch is CancellationError {
            // Shutdown: the store's background work ends here; its connections close after the group.
        }
    }
}

/// Turns the store's wake-up stream into action: fan-out workers claim new jobs, the delivery
/// queue claims new deliveries, and accepted events reach this node's Server-Sent Events listeners.
public struct WakeUpRelay: Service, CustomStringConvertible {
    public var description: String { "WakeUpRelay" }

    private let stream: AsyncStream<StoreWakeUp>
    private let jobs: WakeUpSignal
    private let deliveries: WakeUpSignal
    private let onEvent: @Sendable (PublishedEvent) -> Void

    /// Creates the relay. It subscribes now, so nothing committed after this returns is missed.
    public init(
        store: any StoreRuntime, jobs: WakeUpSignal, deliveries: WakeUpSignal, onEvent: @escaping @Sendable (PublishedEvent) -> Void
    ) {
        self.stream = store.wakeUps()
        self.jobs = jobs
        self.deliveries = deliveries
        self.onEvent = onEvent
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await wakeUp in stream {
                switch wakeUp {
                case .jobs: jobs.notify()
                case .deliveries: deliveries.notify()
                case .event(let event): onEvent(event)
                }
            }
        }
    }
}
