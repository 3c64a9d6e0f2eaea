import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// One `INSERT … SELECT … ON CONFLICT (id) DO NOTHING` for the batch, then the sequence moved
    /// past its largest id, and the other nodes woken: the jobs are free for any of them.
    public func importPublishJobs(_ jobs: [PublishJob]) async throws -> Int {
        guard !jobs.isEmpty else { return 0 }
        let batch = try PublishJobBatch(jobs)
        let rows = try PostgresCodec.jsonRecords(batch.rows)
        let logger = self.logger
        let inserted = try await withTransaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO publish_jobs (id, audience_kind, audience_value, origin, notification, payload, published_at, cursor, pending, end_id,
                                          publish_id)
                SELECT r.id, r.audience_kind, r.audience_value, r.origin,
                       CASE WHEN c.is_payload THEN NULL ELSE c.content END, CASE WHEN c.is_payload THEN c.content END,
                       r.published_at, r.cursor, r.pending, r.end_id, r.publish_id
                FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                    c bigint, id bigint, audience_kind text, audience_value text, origin text, published_at bigint, cursor text,
                    pending text, end_id text, publish_id text)
                JOIN unnest(\(batch.contents.texts)::text[], \(batch.contents.isPayload)::bool[]) WITH ORDINALITY AS c(content, is_payload, i) ON c.i = r.c
                ORDER BY r.id
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: logger).collect().count
            try await Self.advanceSequence(of: "publish_jobs", past: jobs.map(\.id).max() ?? 0, on: connection, logger: logger)
            if inserted > 0 { try await self.notify(.jobs, on: connection) }
            return inserted
        }
        if inserted > 0 { wakeUpHub.yield(.jobs) }
        return inserted
    }

    /// As ``importPublishJobs(_:)``, with the rows of ``scheduleRetries(_:)``: a subscriber's
    /// delivery is inserted only while the subscriber exists.
    public func importQueuedDeliveries(_ entries: [QueuedDelivery]) async throws -> Int {
        guard !entries.isEmpty else { return 0 }
        let batch = try QueuedDeliveryBatch(entries)
        let rows = try PostgresCodec.jsonRecords(batch.rows)
        let logger = self.logger
        let inserted = try await withTransaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO retries (id, subscriber_id, proto, token, origin, statistics_event, notification, payload, silent, badge,
                                     attempts, max_attempts, due_at, published_at, last_reason, publish_id)
                SELECT r.id, r.subscriber_id, r.proto, r.token, r.origin, r.statistics_event,
                       CASE WHEN c.is_payload THEN NULL ELSE c.content END, CASE WHEN c.is_payload THEN c.content END,
                       r.silent, r.badge, r.attempts, r.max_attempts, r.due_at, r.published_at, r.last_reason, r.publish_id
                FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                    id bigint, c bigint, subscriber_id text, proto text, token text, origin text, statistics_event text, silent boolean,
                    badge integer, attempts integer, max_attempts integer, due_at bigint, published_at bigint, last_reason text,
                    publish_id text)
                JOIN unnest(\(batch.contents.texts)::text[], \(batch.contents.isPayload)::bool[]) WITH ORDINALITY AS c(content, is_payload, i) ON c.i = r.c
                WHERE r.subscriber_id IS NULL OR EXISTS (SELECT 1 FROM subscribers WHERE id = r.subscriber_id)
                ORDER BY r.id
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: logger).collect().count
            try await Self.advanceSequence(of: "retries", past: entries.map(\.id).max() ?? 0, on: connection, logger: logger)
            if inserted > 0 { try await self.notify(.deliveries, on: connection) }
            return inserted
        }
        if inserted > 0 { wakeUpHub.yield(.deliveries) }
        return inserted
    }

    /// One statement for the batch over a `jsonb_to_recordset` document, then the sequence moved.
    public func importFeedback(_ entries: [ImportedFeedback]) async throws -> Int {
        guard !entries.isEmpty else { return 0 }
        let rows = try PostgresCodec.jsonRecords(FeedbackBatch(entries).rows)
        let logger = self.logger
        return try await withTransaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO feedback (id, time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference,
                                      invalid_since, taken)
                SELECT id, time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference, invalid_since, taken
                FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                    id bigint, time bigint, subscriber_id text, proto text, token text, status integer, reason text, action text,
                    replacement text, origin text, reference text, invalid_since bigint, taken boolean)
                ORDER BY id
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: logger).collect().count
            try await Self.advanceSequence(of: "feedback", past: entries.map(\.entry.id).max() ?? 0, on: connection, logger: logger)
            return inserted
        }
    }

    /// One statement for the batch, as ``insertDeadLetters(_:time:on:logger:)`` writes them, with their ids.
    public func importDeadLetters(_ letters: [DeadLetter]) async throws -> Int {
        guard !letters.isEmpty else { return 0 }
        let batch = try DeadLetterBatch(letters)
        let rows = try PostgresCodec.jsonRecords(batch.rows)
        let logger = self.logger
        return try await withTransaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO dead_letters (id, time, subscriber_id, origin, proto, token, event, statistics_event, notification, payload,
                                          silent, badge, attempts, published_at, status, reason, max_attempts)
                SELECT r.id, r.time, r.subscriber_id, r.origin, r.proto, r.token, r.event, r.statistics_event,
                       CASE WHEN c.is_payload THEN NULL ELSE c.content END, CASE WHEN c.is_payload THEN c.content END,
                       r.silent, r.badge, r.attempts, r.published_at, r.status, r.reason, r.max_attempts
                FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                    id bigint, c bigint, time bigint, subscriber_id text, origin text, proto text, token text, event text,
                    statistics_event text, silent boolean, badge integer, attempts integer, published_at bigint, status integer,
                    reason text, max_attempts integer)
                JOIN unnest(\(batch.contents.texts)::text[], \(batch.contents.isPayload)::bool[]) WITH ORDINALITY AS c(content, is_payload, i) ON c.i = r.c
                ORDER BY r.id
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: logger).collect().count
            try await Self.advanceSequence(of: "dead_letters", past: letters.map(\.id).max() ?? 0, on: connection, logger: logger)
            return inserted
        }
    }

    /// One count of the log.
    public func feedbackCount() async throws -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("SELECT count(*) FROM feedback", logger: logger).map { try $0.decode(Int.self) }.first ?? 0
        }
    }

    /// Moves `table`'s id sequence to at least `id`, never back: ids never repeat, not even
    /// those of rows deleted since.
    static func advanceSequence(of table: String, past id: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        guard id > 0 else { return }
        // `table` is one of this file's literals, never input.
        try await connection.query("""
            SELECT setval('\(unescaped: table)_id_seq', greatest(\(id), (SELECT last_value FROM \(unescaped: table)_id_seq)))
            """, logger: logger)
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
