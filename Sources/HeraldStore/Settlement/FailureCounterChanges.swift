import HeraldCore

/// What a page of delivery records does to the failure counters, decided apart from any
/// database: a success resets its subscriber's counter, a subscriber failure adds one, in the
/// records' order (so "failed, delivered, failed" leaves 1). A success whose counter was read
/// as 0 (``DeliveryRecord/resetsFailures`` false) resets only what failures earlier in the
/// records added.
///
/// Both backends write the two parts with one statement each: the pure resets through the
/// partial index of failing subscribers, and the counted failures. A page of successes to
/// subscribers that were not failing has neither.
public struct FailureCounterChanges: Sendable {
    /// One subscriber whose counter grows: whether it is reset first, and by how much it grows.
    public struct Counted: Sendable, Equatable {
        /// The subscriber.
        public var id: String
        /// Whether a success came before the failures, resetting the counter first.
        public var reset: Bool
        /// The failures added.
        public var added: Int
    }

    /// Subscribers whose counter only resets to 0, in the records' order.
    public private(set) var resetsOnly: [String] = []
    /// Subscribers whose counter grows, in the records' order.
    public private(set) var counted: [Counted] = []

    /// Folds `records` into one change per subscriber.
    public init(records: [DeliveryRecord]) {
        // The records' fields are read through the array's subscript, in place: iterating the
        // records copied each one whole, retaining and releasing all its strings (0.8 % of the
        // machine's samples in a fan-out on PostgreSQL, for the two fields used here).
        let anyFailure = records.indices.contains { index in
            if case .subscriberFailure = records[index].effect { true } else { false }
        }
        guard anyFailure else {
            // The usual page, successes only: each subscriber's counter resets, and one set of the
            // ids seen replaces the per-subscriber bookkeeping below. Not sized for the page: a
            // page of subscribers that were not failing lists none.
            var seen = Set<String>()
            for index in records.indices {
                guard case .delivered = records[index].effect, records[index].resetsFailures,
                    let id = records[index].subscriberID?.rawValue, seen.insert(id).inserted
                else { continue }
                resetsOnly.append(id)
            }
            return
        }
        var order: [String] = []
        var changes: [String: (reset: Bool, added: Int)] = [:]
        for record in records {
            guard let id = record.subscriberID?.rawValue else { continue }
            switch record.effect {
            case .delivered:
                if changes[id] == nil {
                    // Nothing earlier in the records to reset, and the counter was read as 0.
                    guard record.resetsFailures else { continue }
                    order.append(id)
                }
                changes[id] = (true, 0)
            case .subscriberFailure:
                if changes[id] == nil { order.append(id) }
                changes[id, default: (false, 0)].added += 1
            case .deadToken, .failed:
                continue
            }
        }
        for id in order {
            guard let change = changes[id] else { continue }
            if change.added == 0 {
                resetsOnly.append(id)
            } else {
                counted.append(Counted(id: id, reset: change.reset, added: change.added))
            }
        }
    }

    /// The counters, among `updated` (the counted subscribers' new counters), that reached
    /// `maxFailures`; none when it is 0.
    public func reached(_ updated: [(id: String, failures: Int)], maxFailures: Int) -> [String: Int] {
        guard maxFailures > 0 else { return [:] }
        var reached: [String: Int] = [:]
        for (id, failures) in updated where failures >= maxFailures {
            reached[id] = failures
        }
        return reached
    }
}
