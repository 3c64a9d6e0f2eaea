import Synchronization

/// Wakes idle pipeline workers as soon as work is published, instead of waiting for the next poll.
public final class WakeUpSignal: Sendable {
    private struct State {
        var pendingWake = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Creates a signal.
    public init() {}

    /// Wakes every waiting worker; if none waits, the next wait returns at once.
    public func notify() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.waiters.isEmpty {
                state.pendingWake = true
                return []
            }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when notified, after `timeout`, or when the task is cancelled.
    public func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForNotification() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForNotification() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pendingWake {
                        state.pendingWake = false
                        return true
                    }
                    // Cancellation may have happened before the handler could find this waiter.
                    if Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
