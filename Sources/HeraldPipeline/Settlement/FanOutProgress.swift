import DequeModule
import HeraldCore
import HeraldStore

/// Which members of one job were handed to providers, and which of those are settled: the
/// fan-out's checkpoint window, as a value.
///
/// Audience pages come in ascending id order, so "handed over" is a cursor (the last member of
/// the last page) and "not settled" is a set, bounded by the job's in-flight window. A slow
/// delivery keeps only its own id in the set while the cursor moves on; a checkpoint writes both,
/// and a restart sends the set again and continues after the cursor.
///
/// The set is written in the shorter of its two forms (``PendingMembers``): listed, or as the
/// run of members handed over since the last one settled in order, minus the few settled out
/// of order. Answers mostly come in the order of the requests, so the second is usually a few
/// ids where the first would be thousands, on every commit.
struct FanOutProgress: Sendable, Equatable {
    /// The last member handed to a provider.
    private(set) var cursor: SubscriberID?
    /// Members up to ``cursor`` whose outcome is not settled.
    private(set) var pending: Set<SubscriberID>
    /// Whether every page was read.
    private(set) var exhausted = false
    /// Whether anything changed since the last ``checkpoint()``.
    private(set) var changed = false

    /// The cursor the job was resumed at: members up to it that are pending came from the last
    /// checkpoint, not from ``order``.
    private let resumedAt: SubscriberID?
    /// Pending members that came from the last checkpoint.
    private var inherited: Int
    /// Members handed over in this run, ascending, from the first one not settled.
    private var order: Deque<SubscriberID> = []
    /// Members of ``order`` that are settled.
    private var settledInOrder: Set<SubscriberID> = []
    /// The last member trimmed from the front of ``order``: every member handed over up to it is settled.
    private var settledThrough: SubscriberID?

    /// Progress as a job's last checkpoint left it, with `pending` the members it left unanswered.
    init(cursor: SubscriberID?, pending: [SubscriberID]) {
        self.cursor = cursor
        self.pending = Set(pending)
        self.resumedAt = cursor
        self.inherited = self.pending.count
    }

    /// Members of a page after the cursor are being handed over; `last` is the page's last id.
    mutating func handOver(_ ids: some Sequence<SubscriberID>, through last: SubscriberID) {
        for id in ids where pending.insert(id).inserted {
            order.append(id)
        }
        if cursor.map({ $0 < last }) ?? true { cursor = last }
        changed = true
    }

    /// An outcome for `id` is settled (or there is none to wait for: the member is gone).
    mutating func settle(_ id: SubscriberID) {
        guard pending.remove(id) != nil else { return }
        changed = true
        if let resumedAt, id <= resumedAt {
            inherited -= 1
            return
        }
        settledInOrder.insert(id)
        while let first = order.first, settledInOrder.contains(first) {
            order.removeFirst()
            settledInOrder.remove(first)
            settledThrough = first
        }
    }

    /// No page is left to read.
    mutating func finishReading() {
        if !exhausted {
            exhausted = true
            changed = true
        }
    }

    /// Whether the job is done: every page read and every outcome settled.
    var isComplete: Bool { exhausted && pending.isEmpty }

    /// What to write now, and marks it written.
    mutating func checkpoint() -> (cursor: SubscriberID?, pending: PendingMembers, complete: Bool) {
        changed = false
        return (cursor, pendingMembers, isComplete)
    }

    /// The pending members in their shorter form.
    var pendingMembers: PendingMembers {
        if pending.isEmpty { return .none }
        // The range form covers only members of this run: with pending ones inherited from the
        // last checkpoint it would have to list them too.
        if inherited == 0, settledInOrder.count < pending.count {
            return .range(after: settledThrough ?? resumedAt, except: Array(settledInOrder))
        }
        return .listed(Array(pending))
    }
}
