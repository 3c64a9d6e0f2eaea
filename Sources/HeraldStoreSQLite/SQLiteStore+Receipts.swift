import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// The idempotency key, the schedule or the job, and the receipt, in one savepoint of a shared
    /// write transaction (``SQLiteGroupCommit``).
    public func enqueue(_ publish: PublishRequest, now: Int64) async throws -> EnqueueResult {
        let result = try await groupCommit.write { db -> EnqueueResult in
            if let claim = publish.idempotency {
                if let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT id, fingerprint, created FROM publishes WHERE idempotency_key = ?"), arguments: [claim.key])
                {
                    let created: Int64 = row[2]
                    if created >= claim.since {
                        let fingerprint: String? = row[1]
                        return fingerprint == claim.fingerprint ? .repeated(publishID: row[0]) : .keyConflict
                    }
                    // Expired: the key is free for this publish.
                    try db.cachedStatement(sql: "UPDATE publishes SET idempotency_key = NULL, fingerprint = NULL WHERE idempotency_key = ?")
                        .execute(arguments: [claim.key])
                }
            }
            let key = publish.idempotency?.key
            let fingerprint = publish.idempotency?.fingerprint
            if let dueAt = publish.dueAt, dueAt > now {
                let (kind, value) = try Self.storedAudience(publish.audience)
                let encoded = try SQLiteCodec.encode(publish.content)
                try db.cachedStatement(sql: """
                    INSERT INTO publishes (id, event, state, created, scheduled_at, idempotency_key, fingerprint,
                                           audience_kind, audience_value, origin, notification, payload)
                    VALUES (?, ?, 'scheduled', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                    .execute(arguments: [
                        publish.id, publish.event, now, dueAt, key, fingerprint, kind, value, publish.origin.rawValue,
                        encoded.notification, encoded.payload,
                    ])
                return .scheduled
            }
            let result = try Self.enqueueJob(publish.audience, content: publish.content, origin: publish.origin, now: now, in: db)
            let queued: Bool
            switch result {
            case .queued: queued = true
            case .noAudience: queued = false
            default: return result
            }
            try db.cachedStatement(sql: """
                INSERT INTO publishes (id, event, state, audience, created, started, finished, idempotency_key, fingerprint)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
                .execute(arguments: [
                    publish.id, publish.event, queued ? PublishState.fanningOut.rawValue : PublishState.done.rawValue,
                    queued ? try Self.audienceEstimate(publish.audience, in: db) : 0, now, queued ? nil : now, queued ? nil : now, key,
                    fingerprint,
                ])
            return result
        }
        if case .queued = result { wakeUpHub.yield(.jobs) }
        switch (result, publish.content) {
        case (.queued, .event(let event)), (.noAudience, .event(let event)): wakeUpHub.yield(.event(event))
        default: break
        }
        return result
    }

    /// The audience's size as the store counts it without reading it: the subscription count the
    /// triggers keep per event, the registered subscribers for broadcast, one for a unicast; for
    /// groups the sum of their events' counts (a subscriber of several counts once per event).
    static func audienceEstimate(_ audience: PublishAudience, in db: Database) throws -> Int64 {
        switch audience {
        case .subscribers(let event):
            return try Int64.fetchOne(db.cachedStatement(sql: "SELECT subscribers FROM events WHERE name = ?"), arguments: [event.rawValue]) ?? 0
        case .broadcast:
            return try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM totals WHERE name = 'subscribers'")) ?? 0
        case .unicast, .test:
            return 1
        case .groups(let events, _):
            return try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT coalesce(sum(subscribers), 0) FROM events WHERE name IN (SELECT value FROM json_each(?))"),
                arguments: [SQLiteCodec.jsonArray(events.map(\.rawValue))]) ?? 0
        }
    }

    /// One row and its failures, with the retries counted from the queue.
    public func receipt(of id: String) async throws -> PublishStatus? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT id, event, state, audience, reached, delivered, failed, skipped, dead_lettered, created, scheduled_at, started,
                           finished, (SELECT count(*) FROM retries WHERE publish_id = publishes.id)
                    FROM publishes WHERE id = ?
                    """),
                arguments: [id])
            else { return nil }
            let stateText: String = row[2]
            guard let state = PublishState(rawValue: stateText) else { throw StoreError.corruptRow("publishes \(id): state \(stateText)") }
            var failures: [String: Int64] = [:]
            for failure in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT reason, count FROM publish_failures WHERE publish_id = ?"), arguments: [id])
            {
                failures[failure[0]] = failure[1]
            }
            return PublishStatus(
                id: row[0], event: row[1], state: state, audience: row[3], reached: row[4], delivered: row[5], failed: row[6],
                skipped: row[7], retrying: row[13], deadLettered: row[8], failures: failures, created: row[9], scheduledAt: row[10],
                started: row[11], finished: row[12])
        }
    }

    /// A conditional update: only a scheduled row changes.
    public func cancelPublish(_ id: String, now: Int64) async throws -> CancelResult {
        try await pool.write { db in
            try db.cachedStatement(sql: """
                UPDATE publishes SET state = 'cancelled', finished = ?, notification = NULL, payload = NULL
                WHERE id = ? AND state = 'scheduled'
                """).execute(arguments: [now, id])
            if db.changesCount == 1 { return .cancelled }
            guard let state = try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM publishes WHERE id = ?"), arguments: [id]) else {
                return .unknown
            }
            return .notScheduled(PublishState(rawValue: state) ?? .done)
        }
    }

    /// Each due row becomes a job as ``enqueue(_:content:origin:now:)`` makes one, in one write
    /// transaction; its content leaves the row.
    public func releaseScheduledPublishes(now: Int64, limit: Int) async throws -> [DeliveryContent] {
        // Nothing scheduled is the common case: a read answers it without taking the writer.
        let due = try await pool.read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM publishes WHERE state = 'scheduled' AND scheduled_at <= ?)"),
                arguments: [now]) ?? false
        }
        guard due else { return [] }
        let (released, queued) = try await pool.write { db -> ([DeliveryContent], Bool) in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT 0, audience_kind, audience_value, notification, created, NULL, NULL, origin, payload, NULL, id
                    FROM publishes WHERE state = 'scheduled' AND scheduled_at <= ?
                    ORDER BY scheduled_at LIMIT ?
                    """),
                arguments: [now, limit])
            var released: [DeliveryContent] = []
            var anyQueued = false
            for row in rows {
                let id: String = row[10]
                let job = try Self.job(row)
                let result = try Self.enqueueJob(job.audience, content: job.content, origin: job.origin, now: now, in: db)
                if case .queued = result {
                    anyQueued = true
                    try db.cachedStatement(sql: """
                        UPDATE publishes SET state = 'fanning_out', audience = ?, notification = NULL, payload = NULL WHERE id = ?
                        """).execute(arguments: [try Self.audienceEstimate(job.audience, in: db), id])
                } else {
                    try db.cachedStatement(sql: """
                        UPDATE publishes SET state = 'done', started = ?, finished = ?, notification = NULL, payload = NULL WHERE id = ?
                        """).execute(arguments: [now, now, id])
                }
                released.append(job.content)
            }
            return (released, anyQueued)
        }
        if queued { wakeUpHub.yield(.jobs) }
        return released
    }

    /// Four statements in one transaction, each over its own index.
    public func pruneReceipts(finishedBefore: Int64, keysBefore: Int64, now: Int64) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: """
                DELETE FROM publish_failures WHERE publish_id IN (SELECT id FROM publishes WHERE finished IS NOT NULL AND finished < ?)
                """).execute(arguments: [finishedBefore])
            try db.cachedStatement(sql: "DELETE FROM publishes WHERE finished IS NOT NULL AND finished < ?").execute(arguments: [finishedBefore])
            try db.cachedStatement(sql: """
                UPDATE publishes SET idempotency_key = NULL, fingerprint = NULL WHERE idempotency_key IS NOT NULL AND created < ?
                """).execute(arguments: [keysBefore])
            try db.cachedStatement(sql: """
                UPDATE publishes SET state = 'done', finished = ?, audience = reached
                WHERE state = 'fanning_out'
                  AND NOT EXISTS (SELECT 1 FROM publish_jobs WHERE publish_id = publishes.id)
                  AND NOT EXISTS (SELECT 1 FROM retries WHERE publish_id = publishes.id)
                """).execute(arguments: [now])
        }
    }

    /// Sets `started` on the receipts of claimed jobs that had none.
    static func markStarted(_ ids: [String], now: Int64, in db: Database) throws {
        guard !ids.isEmpty else { return }
        try db.cachedStatement(sql: "UPDATE publishes SET started = ? WHERE started IS NULL AND id IN (SELECT value FROM json_each(?))")
            .execute(arguments: [now, SQLiteCodec.jsonArray(ids)])
    }

    /// Marks `done` those of the publishes that fan out no more: no job and no retry of theirs is left.
    static func finishPublishes(_ ids: some Collection<String>, now: Int64, in db: Database) throws {
        guard !ids.isEmpty else { return }
        try db.cachedStatement(sql: """
            UPDATE publishes SET state = 'done', finished = ?, audience = reached
            WHERE id IN (SELECT value FROM json_each(?)) AND state = 'fanning_out'
              AND NOT EXISTS (SELECT 1 FROM publish_jobs WHERE publish_id = publishes.id)
              AND NOT EXISTS (SELECT 1 FROM retries WHERE publish_id = publishes.id)
            """).execute(arguments: [now, SQLiteCodec.jsonArray(Array(ids))])
    }

    /// Adds a settlement's progress to its receipts: one statement for the counters, one for the
    /// failure reasons.
    static func applyReceipts(_ receipts: [String: ReceiptProgress], in db: Database) throws {
        guard !receipts.isEmpty else { return }
        var counters: [[String]] = []
        var failures: [[String]] = []
        for (id, progress) in receipts {
            counters.append([
                id, String(progress.reached), String(progress.delivered), String(progress.failed), String(progress.skipped),
                String(progress.deadLettered),
            ])
            for (reason, count) in progress.failures { failures.append([id, reason, String(count)]) }
        }
        try db.cachedStatement(sql: """
            UPDATE publishes SET reached = publishes.reached + d.reached, delivered = publishes.delivered + d.delivered,
                failed = publishes.failed + d.failed, skipped = publishes.skipped + d.skipped,
                dead_lettered = publishes.dead_lettered + d.dead_lettered
            FROM (
                SELECT value ->> 0 AS id, CAST(value ->> 1 AS INTEGER) AS reached, CAST(value ->> 2 AS INTEGER) AS delivered,
                       CAST(value ->> 3 AS INTEGER) AS failed, CAST(value ->> 4 AS INTEGER) AS skipped,
                       CAST(value ->> 5 AS INTEGER) AS dead_lettered
                FROM json_each(?)
            ) AS d
            WHERE publishes.id = d.id
            """).execute(arguments: [String(decoding: try JSONEncoder().encode(counters), as: UTF8.self)])
        guard !failures.isEmpty else { return }
        try db.cachedStatement(sql: """
            INSERT INTO publish_failures (publish_id, reason, count)
            SELECT value ->> 0, value ->> 1, CAST(value ->> 2 AS INTEGER) FROM json_each(?)
            WHERE EXISTS (SELECT 1 FROM publishes WHERE id = value ->> 0)
            ON CONFLICT (publish_id, reason) DO UPDATE SET count = count + excluded.count
            """).execute(arguments: [String(decoding: try JSONEncoder().encode(failures), as: UTF8.self)])
    }
}

extension SQLiteStore {
    /// The columns ``publishRecord(_:failures:)`` reads, in its order.
    static let publishColumns = """
        id, event, state, audience, reached, delivered, failed, skipped, dead_lettered, created, scheduled_at, started, finished,
        idempotency_key, fingerprint, audience_kind, audience_value, origin, notification, payload
        """

    /// A range of `publishes` by id, with their failures.
    public func exportPublishes(after cursor: String?, limit: Int) async throws -> [PublishRecord] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(Self.publishColumns) FROM publishes WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [cursor ?? "", limit])
            guard let first = rows.first, let last = rows.last else { return [] }
            var failures: [String: [String: Int64]] = [:]
            for row in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT publish_id, reason, count FROM publish_failures WHERE publish_id BETWEEN ? AND ?"),
                arguments: [first[0] as String, last[0] as String])
            {
                failures[row[0], default: [:]][row[1]] = row[2]
            }
            return try rows.map { row in
                let id: String = row[0]
                let stateText: String = row[2]
                guard let state = PublishState(rawValue: stateText) else { throw StoreError.corruptRow("publishes \(id): state \(stateText)") }
                let status = PublishStatus(
                    id: id, event: row[1], state: state, audience: row[3], reached: row[4], delivered: row[5], failed: row[6], skipped: row[7],
                    deadLettered: row[8], failures: failures[id] ?? [:], created: row[9], scheduledAt: row[10], started: row[11], finished: row[12])
                var record = PublishRecord(status: status)
                if let key: String = row[13], let fingerprint: String = row[14] { record.idempotency = (key, fingerprint) }
                if let kind: String = row[15], let origin: String = row[17] {
                    let audience = try Self.storedAudience(kind: kind, value: row[16], row: "publishes \(id)", jobID: 0)
                    let content = try SQLiteCodec.content(notification: row[18], payload: row[19], table: "publishes", id: 0)
                    record.scheduled = ScheduledContent(audience: audience, origin: DeliveryOrigin(rawValue: origin), content: content)
                }
                return record
            }
        }
    }

    /// One transaction per batch, a cached statement per row; failures with their receipts.
    public func importPublishes(_ records: [PublishRecord]) async throws -> Int {
        guard !records.isEmpty else { return 0 }
        let encoded = try records.map { record in
            (record, try record.scheduled.map { (try Self.storedAudience($0.audience), try SQLiteCodec.encode($0.content)) })
        }
        let inserted = try await pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO publishes (\(Self.publishColumns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING
                """)
            let failure = try db.cachedStatement(sql: """
                INSERT INTO publish_failures (publish_id, reason, count) VALUES (?, ?, ?) ON CONFLICT (publish_id, reason) DO NOTHING
                """)
            var inserted = 0
            for (record, scheduled) in encoded {
                let status = record.status
                var arguments: StatementArguments = [
                    status.id, status.event, status.state.rawValue, status.audience, status.reached, status.delivered, status.failed,
                    status.skipped, status.deadLettered, status.created, status.scheduledAt, status.started, status.finished,
                    record.idempotency?.key, record.idempotency?.fingerprint,
                ]
                arguments += [
                    scheduled?.0.kind, scheduled?.0.value, record.scheduled?.origin.rawValue, scheduled?.1.notification, scheduled?.1.payload,
                ]
                try statement.execute(arguments: arguments)
                guard db.changesCount > 0 else { continue }
                inserted += 1
                for (reason, count) in status.failures { try failure.execute(arguments: [status.id, reason, count]) }
            }
            return inserted
        }
        return inserted
    }
}
