import Foundation
import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Inserts the entries with one statement and notifies the other nodes, skipping entries
    /// whose subscriber was deleted meanwhile: a retry may not outlive its subscriber (§4.5).
    public func scheduleRetries(_ entries: [QueuedDelivery]) async throws {
        guard !entries.isEmpty else { return }
        let batch = try QueuedDeliveryBatch(entries)
        let logger = self.logger
        try await withTransaction { connection in
            try await Self.insertRetries(batch, on: connection, logger: logger)
            try await self.notify(.deliveries, on: connection)
        }
        wakeUpHub.yield(.deliveries)
    }

    /// The key and the deliveries in one transaction. The key's upsert writes a new or expired
    /// key and skips a living one; a concurrent transaction with the same key waits on the key's
    /// row until this one ends and then finds it living, so the deliveries are stored once.
    public func scheduleRetries(_ entries: [QueuedDelivery], once key: DeliveryKey, now: Int64) async throws -> Bool {
        let batch = try QueuedDeliveryBatch(entries)
        let logger = self.logger
        let stored = try await withTransaction { connection -> Bool in
            let claimed = try await connection.query("""
                INSERT INTO delivery_keys (key, expires_at) VALUES (\(key.value), \(key.expiresAt))
                ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE delivery_keys.expires_at <= \(now)
                RETURNING 1
                """, logger: logger)
            guard try await claimed.collect().count == 1 else { return false }
            guard !batch.rows.isEmpty else { return true }
            try await Self.insertRetries(batch, on: connection, logger: logger)
            try await self.notify(.deliveries, on: connection)
            return true
        }
        if stored && !entries.isEmpty { wakeUpHub.yield(.deliveries) }
        return stored
    }

    /// One statement over the keys' expiry index.
    public func pruneDeliveryKeys(now: Int64) async throws -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("DELETE FROM delivery_keys WHERE expires_at <= \(now) RETURNING 1", logger: logger).collect().count
        }
    }

    /// Inserts a batch inside a caller's transaction: the rows as one JSON document, their
    /// contents (each distinct one once: a page of failures shares one notification) as arrays.
    static func insertRetries(_ batch: QueuedDeliveryBatch, on connection: PostgresConnection, logger: Logger) async throws {
        guard !batch.rows.isEmpty else { return }
        let rows = try PostgresCodec.jsonRecords(batch.rows)
        try await connection.query("""
            INSERT INTO retries (subscriber_id, proto, token, origin, statistics_event, notification, payload, silent, badge, attempts,
                                 max_attempts, due_at, published_at, last_reason, publish_id)
            SELECT r.subscriber_id, r.proto, r.token, r.origin, r.statistics_event,
                   CASE WHEN c.is_payload THEN NULL ELSE c.content END, CASE WHEN c.is_payload THEN c.content END,
                   r.silent, r.badge, r.attempts, r.max_attempts, r.due_at, r.published_at, r.last_reason, r.publish_id
            FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                n integer, c bigint, subscriber_id text, proto text, token text, origin text, statistics_event text, silent boolean,
                badge integer, attempts integer, max_attempts integer, due_at bigint, published_at bigint, last_reason text,
                publish_id text)
            JOIN unnest(\(batch.contents.texts)::text[], \(batch.contents.isPayload)::bool[]) WITH ORDINALITY AS c(content, is_payload, i) ON c.i = r.c
            WHERE r.subscriber_id IS NULL OR EXISTS (SELECT 1 FROM subscribers WHERE id = r.subscriber_id)
            ORDER BY r.n
            """, logger: logger)
    }

    /// The columns ``retry(_:decoded:)`` reads, in its order.
    static let retryColumns = """
        r.id, r.subscriber_id, r.statistics_event, r.notification, r.silent, r.badge, r.attempts, r.due_at, r.published_at,
        r.last_reason, r.proto, r.token, r.origin, r.payload, r.max_attempts, r.publish_id
        """

    /// Leases the earliest due, free deliveries; rows another node is claiming are skipped.
    public func claimDueRetries(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [QueuedDelivery] {
        guard limit > 0 else { return [] }
        let logger = self.logger
        let rows = try await withConnection { connection in
            try await connection.query("""
                UPDATE retries AS r SET lease_owner = \(lease.owner), lease_expires = \(lease.expiresAt)
                FROM (
                    SELECT id FROM retries
                    WHERE due_at <= \(nowMillis) AND (lease_expires IS NULL OR lease_expires < \(nowMillis))
                    ORDER BY due_at, id LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                ) AS due
                WHERE r.id = due.id
                RETURNING \(unescaped: Self.retryColumns)
                """, logger: logger).map { try $0.decode(RetryTuple.self) }
        }
        // A claim is mostly rows of a few sends: each distinct stored content is decoded once.
        var decoded: [ContentKey: DeliveryContent] = [:]
        return try rows.map { try Self.retry($0, decoded: &decoded) }.sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
    }

    /// Deletes the delivery.
    public func completeRetry(id: Int64) async throws {
        let logger = self.logger
        try await withConnection { connection in
            _ = try await connection.query("DELETE FROM retries WHERE id = \(id)", logger: logger).collect()
        }
    }

    /// Stores the next attempt and releases the lease, so any node may take it when due.
    public func rescheduleRetry(id: Int64, attempts: Int, dueAt: Int64, lastReason: String?) async throws {
        let logger = self.logger
        try await withConnection { connection in
            _ = try await connection.query("""
                UPDATE retries SET attempts = \(attempts), due_at = \(dueAt), last_reason = \(lastReason), lease_owner = NULL, lease_expires = NULL
                WHERE id = \(id)
                """, logger: logger).collect()
        }
    }

    /// The earliest moment a claim can succeed: an unleased delivery's due time, or for a leased
    /// one the later of its due time and its lease's expiry (a dead node's leases count).
    public func nextRetryDue() async throws -> Int64? {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                SELECT least(
                    (SELECT due_at FROM retries WHERE lease_expires IS NULL ORDER BY due_at, id LIMIT 1),
                    (SELECT min(greatest(due_at, lease_expires + 1)) FROM retries WHERE lease_expires IS NOT NULL))
                """, logger: logger).map { try $0.decode(Int64?.self) }.first ?? nil
        }
    }

    /// Counts what ``claimDueRetries(limit:lease:nowMillis:)`` would take at `nowMillis` with no limit.
    public func retriesDue(nowMillis: Int64) async throws -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query(
                "SELECT count(*) FROM retries WHERE due_at <= \(nowMillis) AND (lease_expires IS NULL OR lease_expires < \(nowMillis))",
                logger: logger
            ).map { try $0.decode(Int.self) }.first ?? 0
        }
    }

    /// The raw columns of ``retryColumns``.
    typealias RetryTuple = (
        Int64, String?, String?, String?, Bool, Int32?, Int32, Int64, Int64, String?, String?, String?, String, String?, Int32?, String?
    )

    /// The stored form of a delivery's content: the key of the decoding cache of one claim.
    struct ContentKey: Hashable {
        var notification: String?
        var payload: String?
    }

    /// Reads a row selected as ``retryColumns``, decoding its content through `decoded`.
    static func retry(_ t: RetryTuple, decoded: inout [ContentKey: DeliveryContent]) throws -> QueuedDelivery {
        let id = t.0
        let recipient: Recipient
        if let subscriberID = t.1 {
            recipient = .subscriber(SubscriberID(rawValue: subscriberID))
        } else if let proto = t.10, let token = t.11 {
            recipient = .token(proto: proto, token: token)
        } else {
            throw StoreError.corruptRow("retries \(id): no recipient")
        }
        let key = ContentKey(notification: t.3, payload: t.13)
        let content: DeliveryContent
        if let cached = decoded[key] {
            content = cached
        } else {
            content = try PostgresCodec.content(notification: key.notification, payload: key.payload, table: "retries", id: id)
            decoded[key] = content
        }
        return QueuedDelivery(
            id: id, recipient: recipient, origin: DeliveryOrigin(rawValue: t.12),
            statisticsEvent: try t.2.map { try PostgresCodec.eventName($0, table: "retries") },
            notification: content, silent: t.4, badge: t.5.map(Int.init), attempts: Int(t.6), maxAttempts: t.14.map(Int.init),
            dueAt: t.7, publishedAt: t.8, lastReason: t.9, receiptID: t.15)
    }
}
