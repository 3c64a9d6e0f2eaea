import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Applies a page of outcomes with a fixed number of statements, whatever its size:
    /// one statistics update per event, one `UPDATE … FROM json_each` for every failure
    /// counter, one read of the dead tokens' `updated`, one batched feedback insert and
    /// one cascade for everything unregistered.
    ///
    /// Failure counters follow the records in order, so "failed, delivered, failed" for
    /// one subscriber leaves its counter at 1. A subscriber reaching `maxFailures` gets two
    /// feedback entries: the failure itself (`failed`) and its unregistration
    /// (`failures:<n>`, with the last failure's status). A dead token of a subscriber that
    /// no longer exists is logged as `failed`: nothing was unregistered.
    public func record(_ records: [DeliveryRecord], maxFailures: Int, now: Int64) async throws -> RecordSummary {
        guard !records.isEmpty else { return RecordSummary() }
        return try await pool.write { db in
            RecordSummary(unregistered: try Self.applyRecords(records, maxFailures: maxFailures, now: now, in: db))
        }
    }

    /// The body of ``record(_:maxFailures:now:)`` inside a caller's transaction.
    /// - Returns: the subscribers unregistered, with the reason.
    static func applyRecords(_ records: [DeliveryRecord], maxFailures: Int, now: Int64, in db: Database) throws -> [(id: SubscriberID, reason: String)] {
        guard !records.isEmpty else { return [] }
        try Self.updateStatistics(records, in: db)
        let reachedThreshold = try Self.updateFailureCounters(records, maxFailures: maxFailures, in: db)

        let deadTokenIDs = Set(records.compactMap { record -> String? in
            if case .deadToken = record.effect { return record.subscriberID?.rawValue }
            return nil
        })
        var updatedByID: [String: Int64] = [:]
        if !deadTokenIDs.isEmpty {
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, updated FROM subscribers WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [SQLiteCodec.jsonArray(deadTokenIDs)]
            )
            for row in rows {
                updatedByID[row[0]] = row[1]
            }
        }

        let outcomes = RecordedOutcomes(records: records, now: now, updatedByID: updatedByID, reachedThreshold: reachedThreshold)
        try Self.insertFeedback(outcomes.feedback, in: db)
        try Self.insertDeadLetters(records, time: now, in: db)
        _ = try Self.deleteSubscribers(outcomes.unregistered.map(\.id.rawValue), in: db)
        return outcomes.unregistered
    }

    /// Inserts the entries with their own ids ignored.
    public func appendFeedback(_ entries: [FeedbackEntry]) async throws {
        guard !entries.isEmpty else { return }
        try await pool.write { db in
            try Self.insertFeedback(entries, in: db)
        }
    }

    /// Deletes by the time index.
    public func pruneFeedback(before time: Int64) async throws -> Int {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM feedback WHERE time < ?").execute(arguments: [time])
            return db.changesCount
        }
    }

    /// Reads forward from the cursor by primary key.
    ///
    /// With `since`, the scan starts at the smallest id whose time qualifies, so polling
    /// recent entries does not walk the whole log from its start. `INDEXED BY` because
    /// SQLite's `min()` shortcut would otherwise find that id by walking the log in id order.
    public func deadTokens(proto: String, among tokens: [String], since: Int64) async throws -> Set<String> {
        guard !tokens.isEmpty else { return [] }
        var list = JSONWriter()
        list.beginArray()
        for token in tokens { list.string(token) }
        list.endArray()
        let tokenList = list.text
        return try await pool.read { db in
            Set(try String.fetchAll(db.cachedStatement(sql: """
                SELECT DISTINCT token FROM feedback INDEXED BY feedback_dead_tokens
                WHERE action = 'invalid' AND proto = ? AND time >= ? AND token IN (SELECT value FROM json_each(?))
                """), arguments: [proto, since, tokenList]))
        }
    }

    public func feedback(matching filter: FeedbackFilter, after cursor: Int64?, since: Int64?, limit: Int) async throws -> [FeedbackEntry] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            let columns = Self.feedbackColumns
            // The filter's columns are compared only when given: `? IS NULL OR` keeps one statement shape.
            let filtered = "(?1 IS NULL OR origin = ?1) AND (?2 IS NULL OR proto = ?2)"
            let rows: [Row]
            if let since {
                rows = try Row.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT \(columns) FROM feedback
                        WHERE id > ?3 AND time >= ?4 AND \(filtered)
                          AND id >= coalesce((SELECT min(id) FROM feedback INDEXED BY feedback_by_time WHERE time >= ?4), 9223372036854775807)
                        ORDER BY id LIMIT ?5
                        """),
                    arguments: [filter.origin?.rawValue, filter.proto, cursor ?? Int64.min, since, limit]
                )
            } else if let origin = filter.origin {
                // A front-end reading its own feedback: one range of the origin index.
                rows = try Row.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT \(columns) FROM feedback INDEXED BY feedback_by_origin
                        WHERE origin = ?1 AND id > ?3 AND (?2 IS NULL OR proto = ?2) ORDER BY origin, id LIMIT ?4
                        """),
                    arguments: [origin.rawValue, filter.proto, cursor ?? Int64.min, limit]
                )
            } else {
                rows = try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT \(columns) FROM feedback WHERE id > ?3 AND \(filtered) ORDER BY id LIMIT ?4"),
                    arguments: [nil as String?, filter.proto, cursor ?? Int64.min, limit]
                )
            }
            return try rows.map(Self.feedbackEntry)
        }
    }

    /// The columns ``feedbackEntry(_:)`` reads, in its order.
    static let feedbackColumns = "id, time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference, invalid_since"

    /// Reads a row selected as ``feedbackColumns``.
    static func feedbackEntry(_ row: Row) throws -> FeedbackEntry {
        let id: Int64 = row[0]
        let action: String = row[7]
        guard let parsed = FeedbackEntry.Action(rawValue: action) else {
            throw StoreError.corruptRow("feedback \(id): unknown action \(action)")
        }
        let subscriberID: String? = row[2]
        return FeedbackEntry(
            id: id,
            time: row[1],
            subscriberID: subscriberID.map(SubscriberID.init(rawValue:)),
            origin: DeliveryOrigin(rawValue: row[9]),
            proto: row[3],
            token: row[4],
            status: row[5],
            reason: row[6],
            action: parsed,
            replacement: row[8],
            reference: row[10],
            invalidSince: row[11]
        )
    }

    /// One `UPDATE … RETURNING` over the partial index of entries not taken yet.
    public func takeFeedback(origin: DeliveryOrigin, actions: Set<FeedbackEntry.Action>, limit: Int) async throws -> [FeedbackEntry] {
        guard limit > 0, !actions.isEmpty else { return [] }
        let list = try SQLiteCodec.jsonArray(actions.map(\.rawValue).sorted())
        return try await pool.write { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    UPDATE feedback SET taken = 1
                    WHERE id IN (
                        SELECT id FROM feedback INDEXED BY feedback_untaken
                        WHERE origin = ? AND taken = 0 AND action IN (SELECT value FROM json_each(?))
                        ORDER BY id LIMIT ?
                    )
                    RETURNING \(Self.feedbackColumns)
                    """),
                arguments: [origin.rawValue, list, limit]
            ).map(Self.feedbackEntry).sorted { $0.id < $1.id }
        }
    }

    /// Adds each record to `delivered` or `failed` of its statistics row, one statement per
    /// distinct event (a page has one). Rows deleted meanwhile are not recreated.
    static func updateStatistics(_ records: [DeliveryRecord], in db: Database) throws {
        var order: [String] = []
        var counts: [String: (delivered: Int64, failed: Int64)] = [:]
        for record in records {
            guard let event = record.statisticsEvent?.rawValue else { continue }
            if counts[event] == nil {
                order.append(event)
                counts[event] = (0, 0)
            }
            if case .delivered = record.effect {
                counts[event]!.delivered += 1
            } else {
                counts[event]!.failed += 1
            }
        }
        let update = try db.cachedStatement(sql: "UPDATE events SET delivered = delivered + ?, failed = failed + ? WHERE name = ?")
        for event in order {
            let count = counts[event]!
            try update.execute(arguments: [count.delivered, count.failed, event])
        }
    }

    /// Sets the failure counters of `ids` to 0. Counters that are not 0 are listed by a partial
    /// index: with none (the usual state), nothing is read beyond one index probe.
    private static func resetFailureCounters(of ids: [String], in db: Database) throws {
        guard !ids.isEmpty,
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM subscribers INDEXED BY subscribers_failing WHERE failures <> 0)")) == true
        else { return }
        try db.cachedStatement(sql: """
            UPDATE subscribers INDEXED BY subscribers_failing SET failures = 0
            WHERE failures <> 0 AND id IN (SELECT value FROM json_each(?))
            """)
            .execute(arguments: [SQLiteCodec.jsonArray(ids)])
    }

    /// Applies every counter change of the batch (``FailureCounterChanges``) in at most two
    /// statements: the pure resets, then the counted failures. Rows whose counter would stay 0
    /// are not written.
    /// - Returns: the counters of the subscribers that reached `maxFailures` (none when it is 0).
    static func updateFailureCounters(_ records: [DeliveryRecord], maxFailures: Int, in db: Database) throws -> [String: Int] {
        let changes = FailureCounterChanges(records: records)
        // Resets alone only matter for counters that are not 0, which the partial index lists.
        try resetFailureCounters(of: changes.resetsOnly, in: db)
        guard !changes.counted.isEmpty else { return [:] }
        let rows = changes.counted.map { change -> [SQLiteCodec.JSONScalar] in
            [.text(change.id), .integer(change.reset ? 1 : 0), .integer(Int64(change.added))]
        }
        let updated = try Row.fetchAll(
            db.cachedStatement(sql: """
                UPDATE subscribers
                SET failures = CASE WHEN change.reset THEN change.added ELSE subscribers.failures + change.added END
                FROM (
                    SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS reset, json_extract(value, '$[2]') AS added
                    FROM json_each(?)
                ) AS change
                WHERE subscribers.id = change.id
                RETURNING id, failures
                """),
            arguments: [SQLiteCodec.jsonRows(rows)]
        ).map { row -> (id: String, failures: Int) in (row[0], row[1]) }
        return changes.reached(updated, maxFailures: maxFailures)
    }

    /// Inserts feedback entries with one statement.
    static func insertFeedback(_ entries: [FeedbackEntry], in db: Database) throws {
        guard !entries.isEmpty else { return }
        let rows: [[SQLiteCodec.JSONScalar]] = entries.map { entry in
            [
                .integer(entry.time), .optional(entry.subscriberID?.rawValue), .text(entry.proto), .text(entry.token),
                .optional(entry.status), .text(entry.reason), .text(entry.action.rawValue), .optional(entry.replacement),
                .text(entry.origin.rawValue), .optional(entry.reference), entry.invalidSince.map { .integer($0) } ?? .null,
            ]
        }
        try db.cachedStatement(sql: """
            INSERT INTO feedback (time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference, invalid_since)
            SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
                   json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'),
                   json_extract(value, '$[8]'), json_extract(value, '$[9]'), json_extract(value, '$[10]')
            FROM json_each(?)
            ORDER BY key
            """)
            .execute(arguments: [SQLiteCodec.jsonRows(rows)])
    }
}
