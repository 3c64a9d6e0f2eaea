import HeraldCore
import HeraldStore
import Synchronization

/// push2mob's filtering of registration ids by their feedback (compat.md §3.4): an id reported
/// `notregistered` or `invalid` is dropped from sends until `feedback` returned it and 10 seconds
/// passed; a `replaced` id is sent to its new id.
///
/// It learns entries by reading the feedback log forward from where it started (a cursor kept in
/// memory), so entries logged before this process started do not filter, and entries another node
/// returned keep filtering here until this node's `feedback` returns them. Both are rare: a client
/// asks for feedback often, and push2mob kept this state in one process too.
final class Push2mobGCMFilter: Sendable {
    /// How long a returned entry keeps filtering.
    static let returnedGrace: Int64 = 10
    /// Most entries read from the log per refresh.
    static let pageSize = 1000

    private struct State {
        var cursor: Int64?
        var primed = false
        /// Entries logged and not returned yet, by registration id.
        var pending: [String: Push2mobGCMFeedback] = [:]
        /// Entries returned, with when (Unix seconds).
        var returned: [String: (entry: Push2mobGCMFeedback, at: Int64)] = [:]
        /// Log ids of entries returned before a refresh read past them: not pending when it does.
        var returnedEntryIDs: Set<Int64> = []
    }

    private let state = Mutex(State())
    private let store: any FeedbackLog
    private let origin: DeliveryOrigin

    /// A filter on `origin`'s entries in `store`.
    init(store: any FeedbackLog, origin: DeliveryOrigin) {
        self.store = store
        self.origin = origin
    }

    /// Reads the entries logged since the last call (the first call only finds where the log ends).
    func refresh() async throws {
        let (cursor, primed) = state.withLock { ($0.cursor, $0.primed) }
        var next = cursor
        var found: [Push2mobGCMFeedback] = []
        while true {
            let page = try await store.feedback(matching: FeedbackFilter(origin: origin), after: next, since: nil, limit: Self.pageSize)
            if primed { found += page.compactMap(Push2mobGCMFeedback.init) }
            next = page.last?.id ?? next
            if page.count < Self.pageSize { break }
        }
        state.withLock { state in
            // Another refresh may have gone further meanwhile; the furthest cursor wins.
            if let next, next > (state.cursor ?? Int64.min) { state.cursor = next }
            state.primed = true
            for entry in found where !state.returnedEntryIDs.contains(entry.entryID) {
                state.pending[entry.registrationID] = entry
            }
            if let cursor = state.cursor { state.returnedEntryIDs = state.returnedEntryIDs.filter { $0 > cursor } }
        }
    }

    /// Records entries `feedback` returned at `now`.
    func returned(_ entries: [Push2mobGCMFeedback], at now: Int64) {
        state.withLock { state in
            for entry in entries {
                if let cursor = state.cursor, entry.entryID <= cursor {
                    // Already read; a refresh will not see it again.
                } else {
                    state.returnedEntryIDs.insert(entry.entryID)
                }
                state.pending[entry.registrationID] = nil
                state.returned[entry.registrationID] = (entry, now)
            }
        }
    }

    /// `ids` without those filtered out, replaced ones renamed.
    func apply(_ ids: [String], now: Int64) -> [String] {
        state.withLock { state in
            state.returned = state.returned.filter { now - $0.value.at < Self.returnedGrace }
            var kept: [String] = []
            kept.reserveCapacity(ids.count)
            for id in ids {
                guard let entry = state.pending[id] ?? state.returned[id]?.entry else {
                    kept.append(id)
                    continue
                }
                switch entry.state {
                case .notregistered, .invalid: continue
                case .replaced: kept.append(entry.newRegistrationID.isEmpty ? id : entry.newRegistrationID)
                }
            }
            return kept
        }
    }
}
