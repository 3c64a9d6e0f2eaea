import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Nothing runs in the background: GRDB opens connections on demand. Waits for the cancellation.
    public func run() async throws {
        while true {
            try await Task.sleep(for: .seconds(3600))
        }
    }

    /// The in-process stream: one process owns the file, so its own commits are all the work there is.
    public func wakeUps() -> AsyncStream<StoreWakeUp> {
        wakeUpHub.subscribe()
    }

    /// In-process: the listeners are this process's.
    public func announce(_ event: PublishedEvent) async throws {
        wakeUpHub.yield(.event(event))
    }
}
