import Synchronization

extension PushProvider {
    /// Up to ``maxConcurrentDeliveries`` tasks, each taking the next delivery when done with one.
    public func send(_ deliveries: [(message: Message, target: DeliveryTarget)], report: @escaping @Sendable (Int, DeliveryOutcome) -> Void) async {
        let cursor = BatchCursor(count: deliveries.count)
        // In a discarding group a finished delivery does not wake the caller, as `group.next()` would.
        await withDiscardingTaskGroup { group in
            for _ in 0..<min(max(1, maxConcurrentDeliveries), deliveries.count) {
                group.addTask {
                    while let index = cursor.claim() {
                        let delivery = deliveries[index]
                        report(index, await send(delivery.message, to: delivery.target))
                    }
                }
            }
        }
    }

    /// One delivery sent as a batch of one, for kinds whose batch send is their main path (a kind
    /// that keeps the default batch send must not use it: each would call the other).
    public func sendAsBatch(_ message: Message, to target: DeliveryTarget) async -> DeliveryOutcome {
        let outcome = ReportedOutcome()
        await send([(message, target)]) { _, reported in outcome.set(reported) }
        return outcome.value
    }
}

/// Indices of a batch collected from the threads that report outcomes (the answers a kind sends
/// again after renewing its credentials, say).
public final class DeliveryIndexList: Sendable {
    private let state = Mutex<[Int]>([])

    /// Creates an empty list.
    public init() {}

    /// Adds an index.
    public func append(_ index: Int) {
        state.withLock { $0.append(index) }
    }

    /// The indices added so far, in the order they came.
    public var indices: [Int] {
        state.withLock { $0 }
    }
}

/// The outcome of a batch of one.
private final class ReportedOutcome: Sendable {
    private let state = Mutex<DeliveryOutcome?>(nil)

    func set(_ outcome: DeliveryOutcome) {
        state.withLock { $0 = outcome }
    }

    /// A batch reports every delivery before it returns, so the fallback is never used.
    var value: DeliveryOutcome {
        state.withLock { $0 } ?? DeliveryOutcome(.transient, reason: "not sent")
    }
}

/// The next delivery of a batch that tasks share: each claims the next index when free.
private final class BatchCursor: Sendable {
    private let count: Int
    private let next = Atomic<Int>(0)

    init(count: Int) {
        self.count = count
    }

    /// The next index to send, or `nil` once all are taken.
    func claim() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}
