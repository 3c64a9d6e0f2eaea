import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// The columns ``deadLetter(_:)`` reads, in its order.
    static let deadLetterColumns = """
        id, time, subscriber_id, proto, token, statistics_event, status, reason, notification, silent, badge, attempts, published_at,
        origin, payload, max_attempts
        """

    /// Reads forward from the cursor by primary key, filtered.
    public func deadLetters(matching filter: DeadLetterFilter, after cursor: Int64?, limit: Int) async throws -> [DeadLetter] {
        guard limit > 0 else { return [] }
        let logger = self.logger
        let condition = DeadLetterCondition(filter)
        let cursor = cursor ?? Int64.min
        return try await withConnection { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.deadLetterColumns) FROM dead_letters AS d
                WHERE d.id > \(cursor)
                  AND (\(condition.ids)::bigint[] IS NULL OR d.id = ANY(\(condition.ids)))
                  AND (\(condition.proto)::text IS NULL OR d.proto = \(condition.proto))
                  AND (\(condition.event)::text IS NULL OR d.event = \(condition.event))
                  AND (\(condition.origin)::text IS NULL OR d.origin = \(condition.origin))
                  AND (\(condition.since)::bigint IS NULL OR d.time >= \(condition.since))
                  AND (\(condition.until)::bigint IS NULL OR d.time < \(condition.until))
                ORDER BY d.id LIMIT \(limit)
                """, logger: logger).map(Self.deadLetter)
        }
    }

    /// Moves the selected rows whose subscriber still exists (and those of raw tokens) into
    /// `retries` with `attempts = 0` and deletes exactly those, in one statement; the rest stay
    /// and are counted as orphaned.
    public func replayDeadLetters(matching filter: DeadLetterFilter, limit: Int, nowMillis: Int64) async throws -> DeadLetterReplay {
        guard limit > 0 else { return DeadLetterReplay(replayed: 0, orphaned: 0) }
        let logger = self.logger
        let condition = DeadLetterCondition(filter)
        let replay = try await withTransaction { connection in
            let counts = try await connection.query("""
                WITH selected AS (
                    SELECT d.id, (d.subscriber_id IS NULL OR EXISTS (SELECT 1 FROM subscribers AS s WHERE s.id = d.subscriber_id)) AS live
                    FROM dead_letters AS d
                    WHERE (\(condition.ids)::bigint[] IS NULL OR d.id = ANY(\(condition.ids)))
                      AND (\(condition.proto)::text IS NULL OR d.proto = \(condition.proto))
                      AND (\(condition.event)::text IS NULL OR d.event = \(condition.event))
                      AND (\(condition.origin)::text IS NULL OR d.origin = \(condition.origin))
                      AND (\(condition.since)::bigint IS NULL OR d.time >= \(condition.since))
                      AND (\(condition.until)::bigint IS NULL OR d.time < \(condition.until))
                    ORDER BY d.id LIMIT \(limit)
                    FOR UPDATE OF d
                ), moved AS (
                    INSERT INTO retries (subscriber_id, proto, token, origin, statistics_event, notification, payload, silent, badge,
                                         attempts, max_attempts, due_at, published_at, last_reason)
                    SELECT d.subscriber_id, CASE WHEN d.subscriber_id IS NULL THEN d.proto END,
                           CASE WHEN d.subscriber_id IS NULL THEN d.token END,
                           d.origin, d.statistics_event, d.notification, d.payload, d.silent, d.badge, 0, d.max_attempts, \(nowMillis),
                           d.published_at, d.reason
                    FROM dead_letters AS d JOIN selected ON selected.id = d.id AND selected.live
                    ORDER BY d.id
                    RETURNING 1
                ), removed AS (
                    DELETE FROM dead_letters AS d USING selected WHERE d.id = selected.id AND selected.live RETURNING 1
                )
                SELECT (SELECT count(*) FROM removed), (SELECT count(*) FROM selected WHERE NOT live)
                """, logger: logger).map { try $0.decode((Int, Int).self) }
            let replay = DeadLetterReplay(replayed: counts.first?.0 ?? 0, orphaned: counts.first?.1 ?? 0)
            if replay.replayed > 0 { try await self.notify(.deliveries, on: connection) }
            return replay
        }
        if replay.replayed > 0 { wakeUpHub.yield(.deliveries) }
        return replay
    }

    /// Deletes the first `limit` matching rows by id.
    public func deleteDeadLetters(matching filter: DeadLetterFilter, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let logger = self.logger
        let condition = DeadLetterCondition(filter)
        return try await withConnection { connection in
            try await connection.query("""
                DELETE FROM dead_letters WHERE id IN (
                    SELECT d.id FROM dead_letters AS d
                    WHERE (\(condition.ids)::bigint[] IS NULL OR d.id = ANY(\(condition.ids)))
                      AND (\(condition.proto)::text IS NULL OR d.proto = \(condition.proto))
                      AND (\(condition.event)::text IS NULL OR d.event = \(condition.event))
                      AND (\(condition.origin)::text IS NULL OR d.origin = \(condition.origin))
                      AND (\(condition.since)::bigint IS NULL OR d.time >= \(condition.since))
                      AND (\(condition.until)::bigint IS NULL OR d.time < \(condition.until))
                    ORDER BY d.id LIMIT \(limit))
                RETURNING 1
                """, logger: logger).collect().count
        }
    }

    /// Deletes by the time index.
    public func pruneDeadLetters(before time: Int64) async throws -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("DELETE FROM dead_letters WHERE time < \(time) RETURNING 1", logger: logger).collect().count
        }
    }

    /// Inserts a dead letter for every failure record that carries one, with one statement,
    /// inside `record`'s transaction.
    static func insertDeadLetters(_ records: [DeliveryRecord], time: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        let batch = try DeadLetterBatch(records, time: time)
        guard !batch.rows.isEmpty else { return }
        let rows = try PostgresCodec.jsonRecords(batch.rows)
        try await connection.query("""
            INSERT INTO dead_letters (time, subscriber_id, origin, proto, token, event, statistics_event, notification, payload,
                                      silent, badge, attempts, published_at, status, reason, max_attempts)
            SELECT r.time, r.subscriber_id, r.origin, r.proto, r.token, r.event, r.statistics_event,
                   CASE WHEN c.is_payload THEN NULL ELSE c.content END, CASE WHEN c.is_payload THEN c.content END,
                   r.silent, r.badge, r.attempts, r.published_at, r.status, r.reason, r.max_attempts
            FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                n integer, c bigint, time bigint, subscriber_id text, origin text, proto text, token text, event text,
                statistics_event text, silent boolean, badge integer, attempts integer, published_at bigint, status integer,
                reason text, max_attempts integer)
            JOIN unnest(\(batch.contents.texts)::text[], \(batch.contents.isPayload)::bool[]) WITH ORDINALITY AS c(content, is_payload, i) ON c.i = r.c
            ORDER BY r.n
            """, logger: logger)
    }

    /// Reads a row selected as ``deadLetterColumns``.
    static func deadLetter(_ row: PostgresRow) throws -> DeadLetter {
        let t = try row.decode(
            (Int64, Int64, String?, String, String, String?, Int32?, String, String?, Bool, Int32?, Int32, Int64, String, String?, Int32?).self)
        let id = t.0
        let publication = Publication(
            content: try PostgresCodec.content(notification: t.8, payload: t.14, table: "dead_letters", id: id),
            origin: DeliveryOrigin(rawValue: t.13), statisticsEvent: try t.5.map { try PostgresCodec.eventName($0, table: "dead_letters") },
            publishedAt: t.12)
        return DeadLetter(
            id: id, time: t.1, subscriberID: t.2.map(SubscriberID.init(rawValue:)), proto: t.3, token: t.4, status: t.6.map(Int.init),
            reason: t.7,
            content: DeadLetterContent(
                publication: publication, silent: t.9, badge: t.10.map(Int.init), attempts: Int(t.11), maxAttempts: t.15.map(Int.init)))
    }
}

/// A dead-letter filter's values, each bound as one parameter (`NULL`: not filtered on).
struct DeadLetterCondition: Sendable {
    var ids: [Int64]?
    var proto: String?
    var event: String?
    var origin: String?
    var since: Int64?
    var until: Int64?

    init(_ filter: DeadLetterFilter) {
        ids = filter.ids
        proto = filter.proto
        event = filter.event
        origin = filter.origin?.rawValue
        since = filter.since
        until = filter.until
    }
}
