import Synchronization

/// A time source the test moves by hand, so refills are tested without waiting.
final class ManualTime: Sendable {
    private let current = Mutex(ContinuousClock.now)

    /// The current instant.
    var now: ContinuousClock.Instant { current.withLock { $0 } }

    /// Moves time forward by `duration`.
    func advance(by duration: Duration) {
        current.withLock { $0 += duration }
    }
}
