import Synchronization

/// A flag that is set once and never cleared, readable from any thread: whether a task was
/// cancelled, for the threads that report its deliveries' outcomes; whether a child task is done,
/// for its parent to look without waiting.
final class OneWayFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Sets the flag.
    func set() { flag.store(true, ordering: .releasing) }

    /// Whether the flag was set.
    var isSet: Bool { flag.load(ordering: .acquiring) }
}
