import HeraldStore
import Synchronization

/// Refuses new publishes while the durable backlog is over its bound (`delivery.max_backlog`),
/// so Herald answers "try later" instead of accepting what it cannot serve.
///
/// The backlog is counted at most every ``samplePeriod``, not per publish: a burst of
/// publishes must not turn into a burst of counting queries.
public final class BacklogGate: Sendable {
    /// How long one count of the backlog is trusted.
    static let samplePeriod: Duration = .milliseconds(200)
    /// What `Retry-After` tells refused publishers.
    static let retryAfterSeconds = 5

    private let store: any PublishQueue
    private let limit: Int
    private let sample = Mutex<(backlog: Int, at: ContinuousClock.Instant)?>(nil)

    /// Creates a gate; a `limit` of 0 admits everything.
    public init(store: any PublishQueue, limit: Int) {
        self.store = store
        self.limit = limit
    }

    /// Throws ``IntakeError/Code/overloaded`` when the backlog has reached the limit.
    public func admit() async throws(IntakeError) {
        guard limit > 0 else { return }
        let now = ContinuousClock.now
        var backlog = sample.withLock { cached -> Int? in
            guard let cached, now - cached.at < Self.samplePeriod else { return nil }
            return cached.backlog
        }
        if backlog == nil {
            do {
                let counted = try await store.backlog()
                backlog = counted.jobs + counted.retries
            } catch {
                throw .unavailable
            }
            let measured = backlog
            sample.withLock { $0 = (measured ?? 0, now) }
        }
        if let backlog, backlog >= limit {
            throw .overloaded(retryAfterSeconds: Self.retryAfterSeconds)
        }
    }
}
