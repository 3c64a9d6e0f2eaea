import Synchronization

/// Hands every wake-up to every subscriber: the in-process fill of a store's wake-up stream.
///
/// A subscriber that falls behind loses the oldest wake-ups past a small buffer rather than
/// holding memory: a wake-up is a hint (workers also poll), and a Server-Sent Events listener
/// that slow is already shedding events in its own buffer.
public final class StoreWakeUps: Sendable {
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<StoreWakeUp>.Continuation] = [:]
    }

    private let state = Mutex(State())
    /// Wake-ups kept for one subscriber that has not read them yet.
    private let bufferLimit: Int

    /// Creates a hub keeping up to `bufferLimit` unread wake-ups per subscriber.
    public init(bufferLimit: Int = 4096) {
        self.bufferLimit = bufferLimit
    }

    /// A new stream of every wake-up from now on; it ends when ``finish()`` is called or the
    /// stream's consumer goes away.
    public func subscribe() -> AsyncStream<StoreWakeUp> {
        let (stream, continuation) = AsyncStream<StoreWakeUp>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.withLock { state in
            defer { state.next += 1 }
            state.subscribers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `wakeUp` to every subscriber; never blocks.
    public func yield(_ wakeUp: StoreWakeUp) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(wakeUp) }
    }

    /// Ends every stream.
    public func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
