import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// The body of ``record(_:maxFailures:now:)`` inside a caller's transaction: one statistics
    /// update for every event of the page, one statement for every failure counter, one read of
    /// the dead tokens' `updated`, one feedback insert, one dead-letter insert and one cascade for
    /// everything unregistered, each over bound arrays.
    ///
    /// Failure counters follow the records in order, so "failed, delivered, failed" for one
    /// subscriber leaves its counter at 1. A subscriber reaching `maxFailures` gets two feedback
    /// entries: the failure itself (`failed`) and its unregistration (`failures:<n>`). A dead
    /// token of a subscriber that no longer exists is logged as `failed`: nothing was unregistered.
    /// - Returns: the subscribers unregistered, with the reason.
    static func applyRecords(
        _ records: [DeliveryRecord], maxFailures: Int, now: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> [(id: SubscriberID, reason: String)] {
        guard !records.isEmpty else { return [] }
        try await updateStatistics(records, on: connection, logger: logger)
        let reachedThreshold = try await updateFailureCounters(records, maxFailures: maxFailures, on: connection, logger: logger)

        let deadTokenIDs = Array(Set(records.compactMap { record -> String? in
            if case .deadToken = record.effect { return record.subscriberID?.rawValue }
            return nil
        }))
        var updatedByID: [String: Int64] = [:]
        if !deadTokenIDs.isEmpty {
            for (id, updated) in try await connection.query(
                "SELECT id, updated FROM subscribers WHERE id = ANY(\(deadTokenIDs)::text[])", logger: logger
            ).map({ try $0.decode((String, Int64).self) }) {
                updatedByID[id] = updated
            }
        }

        let outcomes = RecordedOutcomes(records: records, now: now, updatedByID: updatedByID, reachedThreshold: reachedThreshold)
        try await insertFeedback(outcomes.feedback, on: connection, logger: logger)
        try await insertDeadLetters(records, time: now, on: connection, logger: logger)
        _ = try await deleteSubscribers(outcomes.unregistered.map(\.id.rawValue), on: connection, logger: logger)
        return outcomes.unregistered
    }

    /// Adds each record to `delivered` or `failed` of its statistics row, one statement for every
    /// event of the batch. Rows deleted meanwhile are not recreated.
    static func updateStatistics(_ records: [DeliveryRecord], on connection: PostgresConnection, logger: Logger) async throws {
        var order: [String] = []
        var counts: [String: (delivered: Int64, failed: Int64)] = [:]
        // Fields read in place, as in ``FailureCounterChanges/init(records:)``: a loop over the
        // records copied each one whole.
        for index in records.indices {
            guard let event = records[index].statisticsEvent?.rawValue else { continue }
            if counts[event] == nil {
                order.append(event)
                counts[event] = (0, 0)
            }
            if case .delivered = records[index].effect {
                counts[event]!.delivered += 1
            } else {
                counts[event]!.failed += 1
            }
        }
        guard !order.isEmpty else { return }
        let delivered = order.map { counts[$0]!.delivered }
        let failed = order.map { counts[$0]!.failed }
        try await connection.query("""
            UPDATE events AS e SET delivered = e.delivered + c.delivered, failed = e.failed + c.failed
            FROM unnest(\(order)::text[], \(delivered)::bigint[], \(failed)::bigint[]) AS c(name, delivered, failed)
            WHERE e.name = c.name
            """, logger: logger)
    }

    /// Applies every counter change of the batch in at most two statements: a success resets the
    /// counter, a subscriber failure adds one. Rows whose counter would stay 0 are not written.
    ///
    /// Pure resets (usually the whole page) go through the partial index of failing subscribers
    /// with `id = ANY(…)`: joined to an `unnest` of thousands of ids instead, the planner hashes
    /// the whole subscribers table (60 ms at 100,000 subscribers, against 5 ms). For the same
    /// reason every join to an `unnest` here and in the badges also names its rows by `= ANY(…)`,
    /// which the planner reads through the index.
    /// - Returns: the counters of the subscribers that reached `maxFailures` (none when it is 0).
    static func updateFailureCounters(
        _ records: [DeliveryRecord], maxFailures: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [String: Int] {
        let changes = FailureCounterChanges(records: records)
        if !changes.resetsOnly.isEmpty {
            try await connection.query(
                "UPDATE subscribers SET failures = 0 WHERE failures <> 0 AND id = ANY(\(changes.resetsOnly)::text[])", logger: logger)
        }
        guard !changes.counted.isEmpty else { return [:] }
        let counted = changes.counted.map(\.id)
        let resets = changes.counted.map(\.reset)
        let added = changes.counted.map { Int64($0.added) }
        let updated = try await connection.query("""
            UPDATE subscribers AS s
            SET failures = CASE WHEN c.reset THEN c.added ELSE s.failures + c.added END
            FROM unnest(\(counted)::text[], \(resets)::bool[], \(added)::bigint[]) AS c(id, reset, added)
            WHERE s.id = ANY(\(counted)::text[]) AND s.id = c.id
            RETURNING s.id, s.failures
            """, logger: logger).map { row -> (id: String, failures: Int) in
                let (id, failures) = try row.decode((String, Int32).self)
                return (id, Int(failures))
            }
        return changes.reached(updated, maxFailures: maxFailures)
    }
}
