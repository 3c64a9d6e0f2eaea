import HeraldCore
import Synchronization

/// Hands the first answers of awaited sends to whoever waits for them in this process (apns-ms
/// answers its client with APNs's answer to the first attempt, compat.md §4.3).
///
/// A send is awaited when its prepared payload carries a ``PreparedPayload/receipt``; the waiter
/// opens its receipt before the send is stored, so no answer can come before it listens. On
/// another node, or after the waiter gave up, an answer is simply not observed: it is settled and
/// fed back like any other.
public final class DeliveryObservers: Sendable {
    /// One answer: the token and the service's outcome.
    public typealias Answer = (token: String, outcome: DeliveryOutcome)

    private let waiting = Mutex<[String: AsyncStream<Answer>.Continuation]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Starts collecting the answers for `receipt`; ``close(_:)`` ends it.
    public func open(_ receipt: String) -> AsyncStream<Answer> {
        let (stream, continuation) = AsyncStream<Answer>.makeStream()
        waiting.withLock { $0[receipt] = continuation }
        return stream
    }

    /// Stops collecting for `receipt`.
    public func close(_ receipt: String) {
        waiting.withLock { $0.removeValue(forKey: receipt) }?.finish()
    }

    /// Hands an answer to the waiter of `receipt`, if there is one.
    func report(receipt: String, token: String, outcome: DeliveryOutcome) {
        waiting.withLock { $0[receipt] }?.yield((token, outcome))
    }
}
