import DequeModule
import Synchronization

/// A counting semaphore for tasks: permits are awaited, first come first served, and released
/// from any thread.
///
/// The pipeline's windows and budgets are counts of deliveries, taken in pages or one by one,
/// so a waiter may ask for several permits at once.
final class AsyncSemaphore: Sendable {
    private struct Waiter {
        let id: UInt64
        let permits: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var waiters: Deque<Waiter> = []
        var nextID: UInt64 = 0
    }

    /// The most permits there are.
    let capacity: Int
    private let state: Mutex<State>

    /// Creates a semaphore with `capacity` permits (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.state = Mutex(State(available: max(1, capacity)))
    }

    /// Permits not taken now.
    var available: Int { state.withLock { $0.available } }

    /// Tasks waiting for permits.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Whether nothing is taken and nobody waits.
    var isIdle: Bool { state.withLock { $0.available == capacity && $0.waiters.isEmpty } }

    /// Takes `permits` (at most ``capacity``), waiting behind earlier waiters until they are free.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting; nothing is taken then.
    func acquire(_ permits: Int = 1) async throws {
        let wanted = min(max(1, permits), capacity)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Decision { case resume, cancel, wait }
                let decision = state.withLock { state -> Decision in
                    if Task.isCancelled { return .cancel }
                    if state.waiters.isEmpty && state.available >= wanted {
                        state.available -= wanted
                        return .resume
                    }
                    state.waiters.append(Waiter(id: id, permits: wanted, continuation: continuation))
                    return .wait
                }
                switch decision {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Takes one permit if one comes free within `timeout`.
    ///
    /// - Returns: whether it was taken.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire(within timeout: Duration) async throws -> Bool {
        if tryAcquire() { return true }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await self.acquire(); return true }
            group.addTask { try await Task.sleep(for: timeout); return false }
            let first = try await group.next() ?? false
            group.cancelAll()
            if first { return true }
            // The permit may have been taken just before its waiter was cancelled: keep it then.
            while let taken = try? await group.next() {
                if taken { return true }
            }
            try Task.checkCancellation()
            return false
        }
    }

    /// Takes the permits now if they are free and nobody waits.
    func tryAcquire(_ permits: Int = 1) -> Bool {
        let wanted = min(max(1, permits), capacity)
        return state.withLock { state in
            guard state.waiters.isEmpty, state.available >= wanted else { return false }
            state.available -= wanted
            return true
        }
    }

    /// Gives back `permits`, waking the waiters they satisfy, in order.
    func release(_ permits: Int = 1) {
        guard permits > 0 else { return }
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.available = min(capacity, state.available + permits)
            var woken: [CheckedContinuation<Void, any Error>] = []
            while let first = state.waiters.first, first.permits <= state.available {
                state.available -= first.permits
                woken.append(state.waiters.removeFirst().continuation)
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }
}
