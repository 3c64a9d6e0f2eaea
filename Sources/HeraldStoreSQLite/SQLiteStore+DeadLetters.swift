import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Reads forward from the cursor by primary key, filtered.
    public func deadLetters(matching filter: DeadLetterFilter, after cursor: Int64?, limit: Int) async throws -> [DeadLetter] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            let (condition, arguments) = Self.deadLetterCondition(filter)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, time, subscriber_id, proto, token, statistics_event, status, reason,
                           notification, silent, badge, attempts, published_at, origin, payload, max_attempts
                    FROM dead_letters WHERE id > ? AND \(condition) ORDER BY id LIMIT ?
                    """,
                arguments: StatementArguments([cursor ?? Int64.min]) + arguments + [limit]
            )
            return try rows.map(Self.deadLetter)
        }
    }

    /// Copies the selected rows whose subscriber still exists (and those of raw tokens) into
    /// `retries` with `attempts = 0`, then deletes exactly those rows; the rest stay and are
    /// counted as orphaned.
    public func replayDeadLetters(matching filter: DeadLetterFilter, limit: Int, nowMillis: Int64) async throws -> DeadLetterReplay {
        guard limit > 0 else { return DeadLetterReplay(replayed: 0, orphaned: 0) }
        let replay = try await pool.write { db -> DeadLetterReplay in
            let (condition, arguments) = Self.deadLetterCondition(filter)
            let selected = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, d.subscriber_id IS NULL OR EXISTS (SELECT 1 FROM subscribers s WHERE s.id = d.subscriber_id)
                    FROM dead_letters d WHERE \(condition) ORDER BY d.id LIMIT ?
                    """,
                arguments: arguments + [limit]
            )
            let replayable = selected.filter { $0[1] as Bool }.map { $0[0] as Int64 }
            let ids = try SQLiteCodec.jsonArray(replayable.map(String.init))
            try db.execute(
                sql: """
                    INSERT INTO retries (subscriber_id, proto, token, origin, statistics_event, notification, payload, silent, badge,
                                         attempts, max_attempts, due_at, published_at, last_reason)
                    SELECT subscriber_id, CASE WHEN subscriber_id IS NULL THEN proto END, CASE WHEN subscriber_id IS NULL THEN token END,
                           origin, statistics_event, notification, payload, silent, badge, 0, max_attempts, ?, published_at, reason
                    FROM dead_letters WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY id
                    """,
                arguments: [nowMillis, ids]
            )
            try db.execute(sql: "DELETE FROM dead_letters WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))", arguments: [ids])
            return DeadLetterReplay(replayed: replayable.count, orphaned: selected.count - replayable.count)
        }
        if replay.replayed > 0 { wakeUpHub.yield(.deliveries) }
        return replay
    }

    /// Deletes the first `limit` matching rows by id.
    public func deleteDeadLetters(matching filter: DeadLetterFilter, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await pool.write { db in
            let (condition, arguments) = Self.deadLetterCondition(filter)
            try db.execute(
                sql: "DELETE FROM dead_letters WHERE id IN (SELECT d.id FROM dead_letters d WHERE \(condition) ORDER BY d.id LIMIT ?)",
                arguments: arguments + [limit]
            )
            return db.changesCount
        }
    }

    /// Deletes by the time index.
    public func pruneDeadLetters(before time: Int64) async throws -> Int {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM dead_letters WHERE time < ?").execute(arguments: [time])
            return db.changesCount
        }
    }

    /// Inserts a dead letter for every failure record that carries one, inside `record`'s transaction.
    static func insertDeadLetters(_ records: [DeliveryRecord], time: Int64, in db: Database) throws {
        var encoded: [DeliveryContent: (notification: Data?, payload: Data?)] = [:]
        var statement: Statement?
        for record in records {
            guard let (content, reason, status) = record.deadLetterFailure else { continue }
            let stored: (notification: Data?, payload: Data?)
            if let cached = encoded[content.notification] {
                stored = cached
            } else {
                stored = try SQLiteCodec.encode(content.notification)
                encoded[content.notification] = stored
            }
            if statement == nil {
                statement = try db.cachedStatement(sql: """
                    INSERT INTO dead_letters (time, subscriber_id, origin, proto, token, event, statistics_event, notification, payload,
                                              silent, badge, attempts, published_at, status, reason, max_attempts)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            }
            try statement?.execute(arguments: [
                time, record.subscriberID?.rawValue, record.origin.rawValue, record.proto, record.token, content.notification.eventName,
                record.statisticsEvent?.rawValue, stored.notification, stored.payload, content.silent, content.badge, content.attempts,
                content.publishedAt, status, reason, content.maxAttempts,
            ])
        }
    }

    /// The `WHERE` clause (on alias `d`, or the bare table) and its arguments for a filter.
    static func deadLetterCondition(_ filter: DeadLetterFilter) -> (String, StatementArguments) {
        var clauses = ["1"]
        var arguments = StatementArguments()
        if let ids = filter.ids {
            clauses.append("id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))")
            arguments += [(try? SQLiteCodec.jsonArray(ids.map(String.init))) ?? "[]"]
        }
        if let proto = filter.proto {
            clauses.append("proto = ?")
            arguments += [proto]
        }
        if let event = filter.event {
            clauses.append("event = ?")
            arguments += [event]
        }
        if let origin = filter.origin {
            clauses.append("origin = ?")
            arguments += [origin.rawValue]
        }
        if let since = filter.since {
            clauses.append("time >= ?")
            arguments += [since]
        }
        if let until = filter.until {
            clauses.append("time < ?")
            arguments += [until]
        }
        return (clauses.joined(separator: " AND "), arguments)
    }

    /// Reads a row selected as `id, time, subscriber_id, proto, token, statistics_event, status,
    /// reason, notification, silent, badge, attempts, published_at, origin, payload, max_attempts`.
    static func deadLetter(_ row: Row) throws -> DeadLetter {
        let id: Int64 = row[0]
        let statisticsEvent: String? = row[5]
        let subscriberID: String? = row[2]
        let publication = Publication(
            content: try SQLiteCodec.content(notification: row[8], payload: row[14], table: "dead_letters", id: id),
            origin: DeliveryOrigin(rawValue: row[13]),
            statisticsEvent: try statisticsEvent.map { try SQLiteCodec.eventName($0, table: "dead_letters") },
            publishedAt: row[12])
        return DeadLetter(
            id: id,
            time: row[1],
            subscriberID: subscriberID.map(SubscriberID.init(rawValue:)),
            proto: row[3],
            token: row[4],
            status: row[6],
            reason: row[7],
            content: DeadLetterContent(publication: publication, silent: row[9], badge: row[10], attempts: row[11], maxAttempts: row[15])
        )
    }
}
