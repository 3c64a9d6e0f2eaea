import Foundation
import HeraldCore
import Synchronization

/// Gathers concurrent sends of one rendered message into multicast requests of up to ``batchSize`` tokens.
///
/// The pipeline calls `send` once per subscriber, concurrently, with the same rendered message for every
/// subscriber of a variant. The first send of a message opens a batch and starts a ``batchDelay`` timer; the batch
/// is flushed when it is full or when the timer fires, whichever comes first, and each waiting send then gets the
/// outcome of its own token. Sends of different messages never share a request.
public final class GCMLegacyBatcher: Sendable {
    /// Sends one request for `targets` and returns one result per target, in order.
    public typealias Flush = @Sendable (_ message: GCMLegacyMessage, _ targets: [DeliveryTarget]) async -> [GCMLegacyResult]

    private struct Waiter {
        var target: DeliveryTarget
        var continuation: CheckedContinuation<GCMLegacyResult, Never>
    }

    private struct OpenBatch {
        var sequence: UInt64
        var message: GCMLegacyMessage
        var waiters: [Waiter]
    }

    private struct State {
        /// The batch still accepting sends, per message.
        var open: [UUID: OpenBatch] = [:]
        var nextSequence: UInt64 = 0
    }

    private enum Action {
        case none
        case flush(OpenBatch)
        case startTimer(message: UUID, sequence: UInt64)
    }

    /// The most tokens in one request.
    public let batchSize: Int
    /// How long the first send of a batch waits for others before the batch is sent anyway.
    public let batchDelay: Duration
    private let flush: Flush
    private let state = Mutex(State())

    /// Creates a batcher that sends its batches with `flush`.
    public init(batchSize: Int, batchDelay: Duration, flush: @escaping Flush) {
        precondition(batchSize >= 1, "a batch holds at least one token")
        self.batchSize = batchSize
        self.batchDelay = batchDelay
        self.flush = flush
    }

    /// Adds `target` to the open batch of `message` and waits for the result of its token.
    public func submit(_ message: GCMLegacyMessage, to target: DeliveryTarget) async -> GCMLegacyResult {
        await withCheckedContinuation { continuation in
            let action = state.withLock { state -> Action in
                let waiter = Waiter(target: target, continuation: continuation)
                if var batch = state.open.removeValue(forKey: message.id) {
                    batch.waiters.append(waiter)
                    if batch.waiters.count >= batchSize { return .flush(batch) }
                    state.open[message.id] = batch
                    return .none
                }
                state.nextSequence += 1
                let batch = OpenBatch(sequence: state.nextSequence, message: message, waiters: [waiter])
                if batchSize == 1 { return .flush(batch) }
                state.open[message.id] = batch
                return .startTimer(message: message.id, sequence: batch.sequence)
            }
            switch action {
            case .none:
                break
            case .flush(let batch):
                Task { await self.run(batch) }
            case .startTimer(let id, let sequence):
                Task {
                    try? await Task.sleep(for: self.batchDelay)
                    // The batch may have filled and gone, and a newer one opened under the same message since.
                    let due = self.state.withLock { state -> OpenBatch? in
                        guard state.open[id]?.sequence == sequence else { return nil }
                        return state.open.removeValue(forKey: id)
                    }
                    if let due { await self.run(due) }
                }
            }
        }
    }

    private func run(_ batch: OpenBatch) async {
        let results = await flush(batch.message, batch.waiters.map(\.target))
        for (index, waiter) in batch.waiters.enumerated() {
            // A flush must answer every target; a short answer is a bug, which must still not hang a send.
            let result = index < results.count ? results[index] : GCMLegacyResult(DeliveryOutcome(.transient, reason: "no result"))
            waiter.continuation.resume(returning: result)
        }
    }
}
