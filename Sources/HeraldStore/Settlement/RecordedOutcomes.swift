import HeraldCore

/// What a page of delivery records means for the registry, decided apart from any database: the
/// feedback to append and the subscribers to unregister.
///
/// Every backend reads the two facts this needs (each dead token's `updated`, and which failing
/// subscribers reached `max_failures`) with one statement each, builds this, and writes its parts
/// with one statement each, so the rules live in one place:
/// - A raw token (no subscriber) is only reported: `invalid` for a dead token, `failed` otherwise.
/// - A dead token unregisters its subscriber unless the subscriber registered again after the
///   service reported it invalid (pushd-api.md §11.2), which is logged as `kept`; a dead token of a
///   subscriber that no longer exists is logged as `failed`.
/// - A subscriber's last failure of the page that reached the threshold adds a second entry, its
///   unregistration, with the reason `failures:<n>`.
public struct RecordedOutcomes: Sendable {
    /// The feedback entries, in the records' order.
    public private(set) var feedback: [FeedbackEntry] = []
    /// The subscribers to unregister, each once, with the reason.
    public private(set) var unregistered: [(id: SubscriberID, reason: String)] = []

    /// Decides the outcomes of `records`.
    /// - Parameters:
    ///   - now: the time of the feedback entries.
    ///   - updatedByID: the `updated` time (seconds) of each existing subscriber a dead token names.
    ///   - reachedThreshold: the failure counter of each subscriber that reached `max_failures`.
    public init(records: [DeliveryRecord], now: Int64, updatedByID: [String: Int64], reachedThreshold: [String: Int]) {
        var unregisteredIDs: Set<String> = []
        var remainingFailures: [String: Int] = [:]
        for record in records {
            if case .subscriberFailure = record.effect, let id = record.subscriberID {
                remainingFailures[id.rawValue, default: 0] += 1
            }
        }
        func entry(_ record: DeliveryRecord, status: Int?, reason: String, action: FeedbackEntry.Action) -> FeedbackEntry {
            var invalidSince: Int64?
            if case .deadToken(_, _, let since) = record.effect { invalidSince = since }
            return FeedbackEntry(
                time: now, subscriberID: record.subscriberID, origin: record.origin, proto: record.proto, token: record.token, status: status,
                reason: reason, action: action, reference: record.reference, invalidSince: invalidSince)
        }
        func unregister(_ id: SubscriberID, reason: String) {
            if unregisteredIDs.insert(id.rawValue).inserted {
                unregistered.append((id, reason))
            }
        }
        for record in records {
            guard let subscriberID = record.subscriberID else {
                // A raw token: nothing to count or unregister, only what its sender should know.
                switch record.effect {
                case .delivered:
                    continue
                case .deadToken(let reason, let status, _):
                    feedback.append(entry(record, status: status, reason: reason, action: .invalid))
                case .failed(let reason, let status), .subscriberFailure(let reason, let status):
                    feedback.append(entry(record, status: status, reason: reason, action: .failed))
                }
                continue
            }
            let id = subscriberID.rawValue
            switch record.effect {
            case .delivered:
                continue
            case .failed(let reason, let status):
                feedback.append(entry(record, status: status, reason: reason, action: .failed))
            case .deadToken(let reason, let status, let invalidSince):
                guard let updated = updatedByID[id], !unregisteredIDs.contains(id) else {
                    feedback.append(entry(record, status: status, reason: reason, action: .failed))
                    continue
                }
                if let invalidSince, updated * 1000 >= invalidSince {
                    feedback.append(entry(record, status: status, reason: reason, action: .kept))
                } else {
                    feedback.append(entry(record, status: status, reason: reason, action: .unregistered))
                    unregister(subscriberID, reason: reason)
                }
            case .subscriberFailure(let reason, let status):
                feedback.append(entry(record, status: status, reason: reason, action: .failed))
                remainingFailures[id, default: 0] -= 1
                if remainingFailures[id] == 0, let failures = reachedThreshold[id], !unregisteredIDs.contains(id) {
                    let reason = "failures:\(failures)"
                    feedback.append(entry(record, status: status, reason: reason, action: .unregistered))
                    unregister(subscriberID, reason: reason)
                }
            }
        }
    }
}
