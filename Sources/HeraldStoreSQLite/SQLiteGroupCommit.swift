import GRDB
import Synchronization

/// Group commit: concurrent writes share one durable transaction.
///
/// Each write on its own is a transaction: a hand-off to GRDB's writer queue, `BEGIN`, `COMMIT`
/// and the log frames of every page it touched (the same index and table pages, written again
/// for every registration). Writes submitted here queue up while a transaction runs and the
/// next transaction takes all of them (at most ``maxBatch``), with no savepoints; if one throws,
/// the transaction is rolled back and run again with each write in a `SAVEPOINT` of its own: the
/// one that throws is rolled back alone and answered with its error, its batch-mates are
/// committed (a write alone in its batch keeps its error: its transaction is rolled back).
/// Batches run on GRDB's writer queue itself, one dispatch block each (no hop to the cooperative
/// pool and back per batch; running them on the leading caller's own task instead, as the
/// PostgreSQL group commit does, was measured slower: 103–108 µs of CPU a registration against
/// 75–77). Every caller is resumed only after the commit that
/// holds its write (or with the commit's error), so a success still means "committed", with
/// the durability the store's connections are configured for, as before.
final class SQLiteGroupCommit: Sendable {
    /// One queued write: runs inside the shared transaction and returns how to answer its
    /// caller once the transaction has committed; `fail` answers it when the commit fails.
    private struct Entry: Sendable {
        /// Runs the write (in a savepoint of its own when `isolated`); returns whether it succeeded
        /// and how to answer its caller once the transaction has ended.
        let run: @Sendable (_ db: Database, _ isolated: Bool) -> (succeeded: Bool, answer: @Sendable () -> Void)
        let fail: @Sendable (any Error) -> Void
    }

    /// Writes per transaction, so one transaction (and the wait of its first caller) stays short.
    static let maxBatch = 256

    private let pool: DatabasePool
    /// The queued writes and whether a drain loop is running to take them.
    private let queue = Mutex<(pending: [Entry], draining: Bool)>(([], false))

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `body` inside the next shared write transaction, in a savepoint of its own, and
    /// returns its result once that transaction has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let entry = Entry(
                run: { db, isolated in
                    let result: Result<T, any Error>
                    do {
                        if isolated {
                            var value: T?
                            try db.inSavepoint {
                                value = try body(db)
                                return .commit
                            }
                            // `inSavepoint` ran the block (it returned normally), so `value` is set.
                            result = .success(value!)
                        } else {
                            result = .success(try body(db))
                        }
                    } catch {
                        result = .failure(error)
                    }
                    let succeeded = if case .success = result { true } else { false }
                    return (succeeded, { continuation.resume(with: result) })
                },
                fail: { error in continuation.resume(throwing: error) })
            let start = queue.withLock { queue -> Bool in
                queue.pending.append(entry)
                guard !queue.draining else { return false }
                queue.draining = true
                return true
            }
            if start {
                // The batches run on GRDB's writer queue back to back, with no hop to the
                // cooperative pool between them: under load that hand-off per batch was as
                // costly as the batch.
                pool.asyncWriteWithoutTransaction { db in self.commitNextBatch(db) }
            }
        }
    }

    /// On GRDB's writer queue: commits one batch of the queued writes, then queues itself again
    /// for the writes that arrived meanwhile, behind whatever other writes (claims, settlements)
    /// were queued in the meantime, so a stream of registrations cannot starve them.
    private func commitNextBatch(_ db: Database) {
        let batch = queue.withLock { queue -> [Entry] in
            let taken = Array(queue.pending.prefix(Self.maxBatch))
            queue.pending.removeFirst(taken.count)
            if taken.isEmpty { queue.draining = false }
            return taken
        }
        guard !batch.isEmpty else { return }
        var answers: [@Sendable () -> Void] = []
        do {
            // First with no savepoints (two statements less per write); a write that throws rolls
            // the batch back, and then, alone, keeps its error, or with others, each runs again
            // in a savepoint of its own, so that only the one at fault fails (the writes are
            // statements only, safe to run twice).
            var failed = false
            try db.inTransaction(.immediate) {
                answers = []
                for entry in batch {
                    let (succeeded, answer) = entry.run(db, false)
                    answers.append(answer)
                    if !succeeded {
                        failed = true
                        break
                    }
                }
                return failed ? .rollback : .commit
            }
            if failed, batch.count > 1 {
                try db.inTransaction(.immediate) {
                    answers = batch.map { $0.run(db, true).answer }
                    return .commit
                }
            }
            for answer in answers { answer() }
        } catch {
            for entry in batch { entry.fail(error) }
        }
        pool.asyncWriteWithoutTransaction { db in self.commitNextBatch(db) }
    }
}
