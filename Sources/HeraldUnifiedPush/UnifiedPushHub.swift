import HeraldStore
import Synchronization

/// This node's open subscriptions, woken when a message for one of their topics is accepted here,
/// so they read it from the store at once (other nodes' messages are found by their periodic
/// read). A message with `TTL: 0` is never stored: it is handed to the subscriptions connected
/// now, and to nobody else.
final class UnifiedPushHub: Sendable {
    /// What wakes a subscription.
    enum Wake: Sendable {
        /// A message was stored: read the store.
        case stored
        /// A message kept nowhere (`TTL: 0`).
        case transient(PushMessage)
    }

    private struct Subscription {
        let topics: Set<String>
        let continuation: AsyncStream<Wake>.Continuation
    }

    private let state = Mutex<(next: Int, subscriptions: [Int: Subscription])>((0, [:]))

    /// Opens a subscription to `topics`; it ends when the stream is dropped. Its continuation is
    /// handed out too, so the subscription's own timer can wake it.
    func subscribe(to topics: [String]) -> (stream: AsyncStream<Wake>, continuation: AsyncStream<Wake>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state in
            let id = state.next
            state.next += 1
            state.subscriptions[id] = Subscription(topics: Set(topics), continuation: continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.subscriptions.removeValue(forKey: id) } }
        return (stream, continuation)
    }

    /// Wakes the subscriptions of `topic`.
    func wake(_ topic: String, with wake: Wake) {
        let targets = state.withLock { state in state.subscriptions.values.filter { $0.topics.contains(topic) }.map(\.continuation) }
        for continuation in targets { continuation.yield(wake) }
    }

    /// Whether a subscription of `topic` is open on this node now.
    func isConnected(_ topic: String) -> Bool {
        state.withLock { state in state.subscriptions.values.contains { $0.topics.contains(topic) } }
    }
}
