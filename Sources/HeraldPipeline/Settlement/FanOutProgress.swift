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
///
/// Hashing is kept off the usual path: members of this run are kept in hand-over order (which
/// is id order), so an outcome that arrives in order is matched by one comparison with the
/// first of them; only those settled out of order, or inherited from the last checkpoint, are
/// looked up in a set.
struct FanOutProgress: Sendable, Equatable {
    /// The last member handed to a provider.
    private(set) var cursor: SubscriberID?
    /// Whether every page was read.
    private(set) var exhausted = false
    /// Whether anything changed since the last ``checkpoint()``.
    private(set) var changed = false

    /// The cursor the job was resumed at: members up to it that are pending came from the last
    /// checkpoint, not from ``order``.
    private let resumedAt: SubscriberID?
    /// Pending members that came from the last checkpoint.
    private var inherited: Set<SubscriberID>
    /// Members handed over in this run, ascending, from the first one not settled.
    private var order: Deque<SubscriberID> = []
    /// Members of ``order`` that are settled.
    private var settledInOrder: Set<SubscriberID> = []
    /// The last member trimmed from the front of ``order``: every member handed over up to it is settled.
    private var settledThrough: SubscriberID?

    /// Progress as a job's last checkpoint left it, with `pending` the members it left unanswered.
    init(cursor: SubscriberID?, pending: [SubscriberID]) {
        self.cursor = cursor
        self.inherited = Set(pending)
        self.resumedAt = cursor
    }

    /// Members handed over and not settled.
    var pendingCount: Int { inherited.count + order.count - settledInOrder.count }

    /// Members of a page after the cursor are being handed over, ascending; `last` is the page's last id.
    mutating func handOver(_ ids: some Sequence<SubscriberID>, through last: SubscriberID) {
        for id in ids {
            // Pages come after the cursor in id order; anything else was handed over already.
            if let newest = order.last ?? settledThrough ?? resumedAt, id <= newest { continue }
            order.append(id)
        }
        if cursor.map({ $0 < last }) ?? true { cursor = last }
        changed = true
    }

    /// An outcome for `id` is settled (or there is none to wait for: the member is gone).
    mutating func settle(_ id: SubscriberID) {
        if let resumedAt, id <= resumedAt {
            if inherited.remove(id) != nil { changed = true }
            return
        }
        if let first = order.first, first == id {
            order.removeFirst()
            settledThrough = id
            changed = true
            trimSettled()
            return
        }
        guard contains(id), settledInOrder.insert(id).inserted else { return }
        changed = true
    }

    /// Drops the members settled out of order that are now at the front of ``order``.
    private mutating func trimSettled() {
        while !settledInOrder.isEmpty, let first = order.first, settledInOrder.remove(first) != nil {
            order.removeFirst()
            settledThrough = first
        }
    }

    /// Whether `id` is in ``order`` (settled or not): a binary search, as it is in id order.
    private func contains(_ id: SubscriberID) -> Bool {
        var low = order.startIndex
        var high = order.endIndex
        while low < high {
            let middle = (low + high) / 2
            if order[middle] < id {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < order.endIndex && order[low] == id
    }

    /// No page is left to read.
    mutating func finishReading() {
        if !exhausted {
            exhausted = true
            changed = true
        }
    }

    /// Whether the job is done: every page read and every outcome settled.
    var isComplete: Bool { exhausted && pendingCount == 0 }

    /// What to write now, and marks it written.
    mutating func checkpoint() -> (cursor: SubscriberID?, pending: PendingMembers, complete: Bool) {
        changed = false
        return (cursor, pendingMembers, isComplete)
    }

    /// The pending members in their shorter form.
    var pendingMembers: PendingMembers {
        let count = pendingCount
        if count == 0 { return .none }
        // The range form covers only members of this run: with pending ones inherited from the
        // last checkpoint it would have to list them too.
        if inherited.isEmpty, settledInOrder.count < count {
            return .range(after: settledThrough ?? resumedAt, except: Array(settledInOrder))
        }
        return .listed(Array(inherited) + order.filter { !settledInOrder.contains($0) })
    }
}
