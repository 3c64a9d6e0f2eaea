import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// One transaction per batch with a cached statement per row (SQLite runs a prepared statement
    /// in microseconds, and binds contents as blobs, which JSON cannot carry). `AUTOINCREMENT`
    /// moves each table's sequence past an explicit id by itself.
    public func importPublishJobs(_ jobs: [PublishJob]) async throws -> Int {
        guard !jobs.isEmpty else { return 0 }
        let encoded = try jobs.map { job in
            (job: job, audience: try Self.storedAudience(job.audience), content: try SQLiteCodec.encode(job.content),
             pending: try SQLiteCodec.pendingText(job.pending))
        }
        let inserted = try await pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO publish_jobs (id, audience_kind, audience_value, origin, notification, payload, published_at, cursor, pending, end_id,
                                          publish_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING
                """)
            var inserted = 0
            for item in encoded {
                let job = item.job
                try statement.execute(arguments: [
                    job.id, item.audience.kind, item.audience.value, job.origin.rawValue, item.content.notification, item.content.payload,
                    job.publishedAt, job.cursor?.rawValue, item.pending, job.end?.rawValue, job.receiptID,
                ])
                inserted += db.changesCount
            }
            return inserted
        }
        if inserted > 0 { wakeUpHub.yield(.jobs) }
        return inserted
    }

    /// As ``importPublishJobs(_:)``; a subscriber's delivery is inserted only while the subscriber exists.
    public func importQueuedDeliveries(_ entries: [QueuedDelivery]) async throws -> Int {
        guard !entries.isEmpty else { return 0 }
        let prepared = try Self.encodedRetries(entries)
        let inserted = try await pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO retries (id, subscriber_id, proto, token, origin, statistics_event, notification, payload, silent, badge,
                                     attempts, max_attempts, due_at, published_at, last_reason, publish_id)
                SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
                WHERE ?2 IS NULL OR EXISTS (SELECT 1 FROM subscribers WHERE id = ?2)
                ON CONFLICT (id) DO NOTHING
                """)
            var inserted = 0
            for delivery in prepared {
                let entry = delivery.entry
                var proto: String?
                var token: String?
                if case .token(let p, let t) = entry.recipient { (proto, token) = (p, t) }
                try statement.execute(arguments: [
                    entry.id, entry.subscriberID?.rawValue, proto, token, entry.origin.rawValue, entry.statisticsEvent?.rawValue,
                    delivery.notification, delivery.payload, entry.silent, entry.badge, entry.attempts, entry.maxAttempts, entry.dueAt,
                    entry.publishedAt, entry.lastReason, entry.receiptID,
                ])
                inserted += db.changesCount
            }
            return inserted
        }
        if inserted > 0 { wakeUpHub.yield(.deliveries) }
        return inserted
    }

    /// One statement for the batch over a JSON document, as ``insertFeedback(_:in:)`` writes entries.
    public func importFeedback(_ entries: [ImportedFeedback]) async throws -> Int {
        guard !entries.isEmpty else { return 0 }
        let rows: [[SQLiteCodec.JSONScalar]] = entries.map { imported in
            let entry = imported.entry
            return [
                .integer(entry.id), .integer(entry.time), .optional(entry.subscriberID?.rawValue), .text(entry.proto), .text(entry.token),
                .optional(entry.status), .text(entry.reason), .text(entry.action.rawValue), .optional(entry.replacement),
                .text(entry.origin.rawValue), .optional(entry.reference), entry.invalidSince.map { .integer($0) } ?? .null,
                .integer(imported.taken ? 1 : 0),
            ]
        }
        return try await pool.write { db in
            try db.cachedStatement(sql: """
                INSERT INTO feedback (id, time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference,
                                      invalid_since, taken)
                SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
                       json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'),
                       json_extract(value, '$[8]'), json_extract(value, '$[9]'), json_extract(value, '$[10]'), json_extract(value, '$[11]'),
                       json_extract(value, '$[12]')
                FROM json_each(?) WHERE true
                ON CONFLICT (id) DO NOTHING
                """)
                .execute(arguments: [SQLiteCodec.jsonRows(rows)])
            return db.changesCount
        }
    }

    /// As ``importPublishJobs(_:)``: a cached statement per row in one transaction.
    public func importDeadLetters(_ letters: [DeadLetter]) async throws -> Int {
        guard !letters.isEmpty else { return 0 }
        var encoded: [DeliveryContent: (notification: Data?, payload: Data?)] = [:]
        for letter in letters where encoded[letter.content.notification] == nil {
            encoded[letter.content.notification] = try SQLiteCodec.encode(letter.content.notification)
        }
        return try await pool.write { [encoded] db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO dead_letters (id, time, subscriber_id, origin, proto, token, event, statistics_event, notification, payload,
                                          silent, badge, attempts, published_at, status, reason, max_attempts)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING
                """)
            var inserted = 0
            for letter in letters {
                let content = letter.content
                let stored = encoded[content.notification]
                try statement.execute(arguments: [
                    letter.id, letter.time, letter.subscriberID?.rawValue, letter.origin.rawValue, letter.proto, letter.token,
                    content.notification.eventName, letter.statisticsEvent?.rawValue, stored?.notification, stored?.payload, content.silent,
                    content.badge, content.attempts, content.publishedAt, letter.status, letter.reason, content.maxAttempts,
                ])
                inserted += db.changesCount
            }
            return inserted
        }
    }

    /// One count of the log.
    public func feedbackCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM feedback")) ?? 0 }
    }

    /// The `audience_kind` and `audience_value` a job's audience is stored as (read back by ``job(_:)``).
    static func storedAudience(_ audience: PublishAudience) throws -> (kind: String, value: String?) {
        switch audience {
        case .subscribers(let event): ("subscribers", event.rawValue)
        case .broadcast: ("broadcast", nil)
        case .unicast(let id): ("unicast", id.rawValue)
        case .test(let id): ("test", id.rawValue)
        case .groups(let events, let proto): (groupsKind, try groupsValue(events, proto: proto))
        }
    }
}
