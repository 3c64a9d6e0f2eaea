import GRDB
import Synchronization

/// Group commit: concurrent writes share one durable transaction.
///
/// Each write on its own is a transaction and, in WAL mode with `synchronous = FULL`, a sync of
/// the log; under many concurrent registrations or publishes that per-commit cost, and the hop
/// to GRDB's writer queue per request, dominated. Writes submitted here queue up while a
/// transaction runs and the next transaction takes all of them (at most ``maxBatch``), each in
/// a `SAVEPOINT` of its own: one that throws is rolled back alone and answered with its error,
/// its batch-mates are committed. Every caller is resumed only after the commit that holds its
/// write (or with the commit's error), so a success still means "on disk".
final class SQLiteGroupCommit: Sendable {
    /// One queued write: runs inside the shared transaction and returns how to answer its
    /// caller once the transaction has committed; `fail` answers it when the commit fails.
    private struct Entry: Sendable {
        let run: @Sendable (Database) -> @Sendable () -> Void
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
                run: { db in
                    let result: Result<T, any Error>
                    do {
                        var value: T?
                        try db.inSavepoint {
                            value = try body(db)
                            return .commit
                        }
                        // `inSavepoint` ran the block (it returned normally), so `value` is set.
                        result = .success(value!)
                    } catch {
                        result = .failure(error)
                    }
                    return { continuation.resume(with: result) }
                },
                fail: { error in continuation.resume(throwing: error) })
            let start = queue.withLock { queue -> Bool in
                queue.pending.append(entry)
                guard !queue.draining else { return false }
                queue.draining = true
                return true
            }
            if start {
                Task { await self.drain() }
            }
        }
    }

    /// Commits queued writes batch by batch until none is left.
    private func drain() async {
        while true {
            let batch = queue.withLock { queue -> [Entry] in
                guard !queue.pending.isEmpty else {
                    queue.draining = false
                    return []
                }
                let taken = Array(queue.pending.prefix(Self.maxBatch))
                queue.pending.removeFirst(taken.count)
                return taken
            }
            guard !batch.isEmpty else { return }
            do {
                let answers = try await pool.write { db in batch.map { $0.run(db) } }
                for answer in answers { answer() }
            } catch {
                for entry in batch { entry.fail(error) }
            }
        }
    }
}
