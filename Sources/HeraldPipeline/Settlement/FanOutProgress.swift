import HeraldCore
import HeraldStore

/// Which members of one job were handed to providers, and which of those are settled: the
/// fan-out's checkpoint window, as a value.
///
/// Audience pages come in ascending id order, so "handed over" is a cursor (the last member of
/// the last page) and "not settled" is a set, bounded by the job's in-flight window. A slow
/// delivery keeps only its own id in the set while the cursor moves on; a checkpoint writes both,
/// and a restart sends the set again and continues after the cursor.
struct FanOutProgress: Sendable, Equatable {
    /// The last member handed to a provider.
    private(set) var cursor: SubscriberID?
    /// Members up to ``cursor`` whose outcome is not settled.
    private(set) var pending: Set<SubscriberID>
    /// Whether every page was read.
    private(set) var exhausted = false
    /// Whether anything changed since the last ``checkpoint()``.
    private(set) var changed = false

    /// Progress as a job's last checkpoint left it.
    init(cursor: SubscriberID?, pending: [SubscriberID]) {
        self.cursor = cursor
        self.pending = Set(pending)
    }

    /// Members of a page after the cursor are being handed over; `last` is the page's last id.
    mutating func handOver(_ ids: some Sequence<SubscriberID>, through last: SubscriberID) {
        pending.formUnion(ids)
        if cursor.map({ $0 < last }) ?? true { cursor = last }
        changed = true
    }

    /// An outcome for `id` is settled (or there is none to wait for: the member is gone).
    mutating func settle(_ id: SubscriberID) {
        if pending.remove(id) != nil { changed = true }
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

    /// What to write now, and marks it written. The pending members come in no particular order
    /// (sorting thousands of ids on every commit cost more than the rest of it).
    mutating func checkpoint() -> (cursor: SubscriberID?, pending: [SubscriberID], complete: Bool) {
        changed = false
        return (cursor, Array(pending), isComplete)
    }
}
