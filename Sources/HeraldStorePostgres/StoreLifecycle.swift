import HeraldStore
import Synchronization

/// Where a ``PostgresStore`` is in its life: starting (connecting and migrating), ready, failed
/// or closed; calls wait for ready, and ``PostgresStore/close()`` ends ``PostgresStore/run()``.
final class StoreLifecycle: Sendable {
    enum Phase {
        case starting
        case ready
        case failed(any Error)
        case closed
    }

    private struct State {
        var phase = Phase.starting
    }

    private let state = Mutex(State())

    /// Whether calls can proceed now, without waiting.
    var isReady: Bool {
        state.withLock { if case .ready = $0.phase { true } else { false } }
    }

    /// Marks the store ready (the schema is migrated).
    func markReady() {
        state.withLock { if case .starting = $0.phase { $0.phase = .ready } }
    }

    /// Marks the store failed: every call throws `error` from now on.
    func markFailed(_ error: any Error) {
        state.withLock { if case .closed = $0.phase {} else { $0.phase = .failed(error) } }
    }

    /// Closes: calls fail, and ``PostgresStore/run()`` returns.
    func close() {
        state.withLock { $0.phase = .closed }
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool {
        state.withLock { if case .closed = $0.phase { true } else { false } }
    }

    /// Waits until the store is ready, for at most `timeout`.
    /// - Throws: ``StoreError/unavailable`` when it is not ready in time or is closed; the start's
    ///   own error when it failed.
    func waitUntilReady(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch state.withLock({ $0.phase }) {
            case .ready: return
            case .failed(let error): throw error
            case .closed: throw StoreError.unavailable("the store is closed")
            case .starting:
                // Polled rather than signalled: only the first calls of a process ever wait here.
                guard ContinuousClock.now < deadline else { throw StoreError.unavailable("the database is not ready yet") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}
