/// The decisions of a group commit (``PostgresGroupCommit``), apart from its waiting and its SQL:
/// who commits the next batch, and which writes go in it.
///
/// A write that arrives while fewer than ``maxLeaders`` batches are being committed leads: it
/// commits a batch at once, made of itself and the writes waiting. Any other write waits. When a
/// leader's batch is committed it hands its place to the oldest waiting write, which then leads
/// the next batch with the writes that arrived meanwhile; so under load a batch gathers the
/// writes that came during the commit before it, and a write arriving at an idle store is
/// committed at once, with no wait to gather others.
///
/// A value type with no clock and no I/O, so its rules have tests of their own; the caller
/// holds it under a lock and acts on its answers outside the lock.
struct GroupCommitQueue<Waiter> {
    /// The most writes in one batch, leader included, so one statement (and the wait of the
    /// writes in it) stays short.
    let maxBatch: Int
    /// The most batches being committed at once.
    let maxLeaders: Int

    /// The writes waiting, oldest first, from `head` on (taken from the front without shifting
    /// the rest each time).
    private var waiting: [Waiter] = []
    private var head = 0
    /// The batches being committed now.
    private(set) var leaders = 0

    /// A queue that commits at most `maxLeaders` batches of at most `maxBatch` writes at once.
    init(maxBatch: Int, maxLeaders: Int) {
        precondition(maxBatch >= 1 && maxLeaders >= 1)
        self.maxBatch = maxBatch
        self.maxLeaders = maxLeaders
    }

    /// The writes waiting for a leader.
    var waitingCount: Int { waiting.count - head }

    /// A write arrives: `true` when it leads a batch now (and `waiter` is not kept), `false`
    /// when `waiter` waits for a leader to commit it or to hand it the lead.
    mutating func arrive(_ waiter: Waiter) -> Bool {
        if leaders < maxLeaders {
            leaders += 1
            return true
        }
        waiting.append(waiter)
        return false
    }

    /// The writes a leader commits with its own: the oldest waiting, up to the batch's room.
    mutating func followers() -> ArraySlice<Waiter> {
        let taken = waiting[head..<min(waiting.count, head + maxBatch - 1)]
        head += taken.count
        compact()
        return taken
    }

    /// A leader's batch is committed: the waiting write that leads next (the oldest), or `nil`
    /// when none waits and the leader's place is free again.
    mutating func handOver() -> Waiter? {
        guard waitingCount > 0 else {
            leaders -= 1
            return nil
        }
        let next = waiting[head]
        head += 1
        compact()
        return next
    }

    /// Drops the taken writes once they are most of the array, so it does not grow forever.
    private mutating func compact() {
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
    }
}
