import Synchronization

/// Group commit for one kind of write: concurrent writes on a node are gathered and committed
/// by one statement in one round trip, each caller answered only once the statement holding its
/// own write has committed.
///
/// There is no timer and no task of its own: the write that finds no batch being committed
/// commits at once, taking the writes that are waiting with it; writes that arrive meanwhile
/// wait, and the oldest of them leads the next batch when this one is done
/// (``GroupCommitQueue``). A batch therefore gathers what arrived during the commit before it,
/// which under load is a round trip's worth of requests, and costs an idle store nothing.
///
/// `commit` answers every write of a batch, in order, and does not throw: a statement the server
/// refused is run again write by write by the caller's `commit`, so that only the writes at fault
/// fail (``PostgresStore``'s registrations and publishes do so).
final class PostgresGroupCommit<Item: Sendable, Answer: Sendable>: Sendable {
    /// How a waiting write is resumed: with its answer, or with the lead of the next batch.
    private enum Turn: Sendable {
        case answered(Answer)
        case lead
    }

    /// A waiting write and where to resume it.
    private struct Waiter: Sendable {
        let item: Item
        let continuation: CheckedContinuation<Turn, any Error>
    }

    /// Commits a batch: one answer per item, in the items' order.
    typealias Commit = @Sendable (_ batch: [Item]) async -> [Result<Answer, any Error>]

    private let queue: Mutex<GroupCommitQueue<Waiter>>

    /// A group commit of at most `maxLeaders` batches of at most `maxBatch` writes at once.
    init(maxBatch: Int, maxLeaders: Int) {
        queue = Mutex(GroupCommitQueue(maxBatch: maxBatch, maxLeaders: maxLeaders))
    }

    /// Commits `item` with the writes that arrive with it, and returns its own answer once the
    /// statement holding it has committed.
    ///
    /// Every caller passes the same `commit`; the one leading a batch runs it. The write is not
    /// cancelled with the caller's task: once queued it is committed and answered.
    func submit(_ item: Item, commit: Commit) async throws -> Answer {
        let turn = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Turn, any Error>) in
            let leads = queue.withLock { $0.arrive(Waiter(item: item, continuation: continuation)) }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .answered(let answer):
            return answer
        case .lead:
            return try await lead(with: item, commit: commit)
        }
    }

    /// Commits a batch of `item` and the writes waiting, hands the lead on, then answers them.
    private func lead(with item: Item, commit: Commit) async throws -> Answer {
        let followers = queue.withLock { $0.followers() }
        var batch = [item]
        batch.reserveCapacity(followers.count + 1)
        for follower in followers { batch.append(follower.item) }
        let answers = await commit(batch)
        precondition(answers.count == batch.count, "a group commit answers every write of its batch")
        // The next batch starts before this one's callers are resumed, so that its commit
        // overlaps their answers.
        if let next = queue.withLock({ $0.handOver() }) {
            next.continuation.resume(returning: .lead)
        }
        for (follower, answer) in zip(followers, answers.dropFirst()) {
            follower.continuation.resume(with: answer.map(Turn.answered))
        }
        return try answers[0].get()
    }
}
