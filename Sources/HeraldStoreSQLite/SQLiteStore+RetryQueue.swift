import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Inserts the entries in one transaction, skipping those whose subscriber was deleted
    /// meanwhile: a retry may not outlive its subscriber (§4.5), and the foreign key would
    /// otherwise fail the whole batch.
    public func scheduleRetries(_ entries: [QueuedDelivery]) async throws {
        guard !entries.isEmpty else { return }
        let prepared = try Self.encodedRetries(entries)
        try await pool.write { db in
            try Self.insertRetries(prepared, in: db)
        }
        wakeUpHub.yield(.deliveries)
    }

    /// The key's row and the deliveries in one write transaction; a living key stores neither.
    public func scheduleRetries(_ entries: [QueuedDelivery], once key: DeliveryKey, now: Int64) async throws -> Bool {
        let prepared = try Self.encodedRetries(entries)
        let stored = try await pool.write { db -> Bool in
            let living = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM delivery_keys WHERE key = ? AND expires_at > ?"), arguments: [key.value, now])
            guard living == nil else { return false }
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO delivery_keys (key, expires_at) VALUES (?, ?)")
                .execute(arguments: [key.value, key.expiresAt])
            try Self.insertRetries(prepared, in: db)
            return true
        }
        if stored && !entries.isEmpty { wakeUpHub.yield(.deliveries) }
        return stored
    }

    /// One statement over the keys' expiry index.
    public func pruneDeliveryKeys(now: Int64) async throws -> Int {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM delivery_keys WHERE expires_at <= ?").execute(arguments: [now])
            return db.changesCount
        }
    }

    /// The deliveries with their content encoded, each distinct one once, outside any transaction.
    static func encodedRetries(_ entries: [QueuedDelivery]) throws -> [EncodedDelivery] {
        // A page of failures usually shares one notification: encode it once.
        var encoded: [DeliveryContent: (notification: Data?, payload: Data?)] = [:]
        var rows: [EncodedDelivery] = []
        rows.reserveCapacity(entries.count)
        for entry in entries {
            let data: (notification: Data?, payload: Data?)
            if let cached = encoded[entry.notification] {
                data = cached
            } else {
                data = try SQLiteCodec.encode(entry.notification)
                encoded[entry.notification] = data
            }
            rows.append(EncodedDelivery(entry: entry, notification: data.notification, payload: data.payload))
        }
        return rows
    }

    /// A queued delivery with its content in stored form.
    struct EncodedDelivery: Sendable {
        var entry: QueuedDelivery
        var notification: Data?
        var payload: Data?
    }

    /// Inserts encoded deliveries inside a caller's transaction, skipping those whose subscriber is gone.
    static func insertRetries(_ prepared: [EncodedDelivery], in db: Database) throws {
        guard !prepared.isEmpty else { return }
        let forSubscriber = try db.cachedStatement(sql: """
            INSERT INTO retries (subscriber_id, origin, statistics_event, notification, payload, silent, badge, attempts, due_at,
                                 published_at, last_reason, max_attempts, publish_id)
            SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
            WHERE EXISTS (SELECT 1 FROM subscribers WHERE id = ?)
            """)
        for delivery in prepared {
            let entry = delivery.entry
            switch entry.recipient {
            case .subscriber(let id):
                try forSubscriber.execute(arguments: [
                    id.rawValue, entry.origin.rawValue, entry.statisticsEvent?.rawValue, delivery.notification, delivery.payload,
                    entry.silent, entry.badge, entry.attempts, entry.dueAt, entry.publishedAt, entry.lastReason, entry.maxAttempts,
                    entry.receiptID, id.rawValue,
                ])
            case .token(let proto, let token):
                try db.cachedStatement(sql: """
                    INSERT INTO retries (proto, token, origin, statistics_event, notification, payload, silent, badge, attempts, due_at,
                                         published_at, last_reason, max_attempts, publish_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                    .execute(arguments: [
                        proto, token, entry.origin.rawValue, entry.statisticsEvent?.rawValue, delivery.notification, delivery.payload,
                        entry.silent, entry.badge, entry.attempts, entry.dueAt, entry.publishedAt, entry.lastReason, entry.maxAttempts,
                        entry.receiptID,
                    ])
            }
        }
    }

    /// Leases the earliest due, free retries with one `UPDATE … RETURNING`.
    public func claimDueRetries(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [QueuedDelivery] {
        guard limit > 0 else { return [] }
        return try await pool.write { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    UPDATE retries SET lease_owner = ?, lease_expires = ?
                    WHERE id IN (
                        SELECT id FROM retries
                        WHERE due_at <= ? AND (lease_expires IS NULL OR lease_expires < ?)
                        ORDER BY due_at, id LIMIT ?
                    )
                    RETURNING \(Self.retryColumns)
                    """),
                arguments: [lease.owner, lease.expiresAt, nowMillis, nowMillis, limit]
            )
            // A claim is mostly rows of a few sends (a raw send's tokens share one payload): each
            // distinct stored content is decoded once, not once per row.
            var decoded: [ContentKey: DeliveryContent] = [:]
            return try rows.map { try Self.retry($0, decoded: &decoded) }.sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
        }
    }

    /// Deletes the retry.
    public func completeRetry(id: Int64) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM retries WHERE id = ?").execute(arguments: [id])
        }
    }

    /// Stores the next attempt and releases the lease, so any worker may take it when due.
    public func rescheduleRetry(id: Int64, attempts: Int, dueAt: Int64, lastReason: String?) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: """
                UPDATE retries SET attempts = ?, due_at = ?, last_reason = ?, lease_owner = NULL, lease_expires = NULL
                WHERE id = ?
                """)
                .execute(arguments: [attempts, dueAt, lastReason, id])
        }
    }

    /// The earliest moment a claim can succeed: an unleased retry's due time, or for a
    /// leased one the later of its due time and its lease's expiry. Counting abandoned
    /// leases (a crashed worker's) keeps a sleeping worker from waiting forever for them.
    public func nextRetryDue() async throws -> Int64? {
        try await pool.read { db in
            let free = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT due_at FROM retries WHERE lease_expires IS NULL ORDER BY due_at LIMIT 1")
            )
            let leased = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT min(max(due_at, lease_expires + 1)) FROM retries WHERE lease_expires IS NOT NULL")
            )
            return [free, leased].compactMap { $0 }.min()
        }
    }

    /// Counts what ``claimDueRetries(limit:lease:nowMillis:)`` would take at `nowMillis` with no limit.
    public func retriesDue(nowMillis: Int64) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count(*) FROM retries WHERE due_at <= ? AND (lease_expires IS NULL OR lease_expires < ?)"),
                arguments: [nowMillis, nowMillis]) ?? 0
        }
    }

    /// The columns ``retry(_:decoded:)`` reads, in its order.
    static let retryColumns = """
        id, subscriber_id, statistics_event, notification, silent, badge, attempts, due_at, published_at, last_reason,
        proto, token, origin, payload, max_attempts, publish_id
        """

    /// The stored form of a delivery's content: the key of the decoding cache of one claim.
    struct ContentKey: Hashable {
        var notification: Data?
        var payload: Data?
    }

    /// Reads a row selected as ``retryColumns``, decoding its content through `decoded`.
    static func retry(_ row: Row, decoded: inout [ContentKey: DeliveryContent]) throws -> QueuedDelivery {
        let id: Int64 = row[0]
        let statisticsEvent: String? = row[2]
        let subscriberID: String? = row[1]
        let recipient: Recipient
        if let subscriberID {
            recipient = .subscriber(SubscriberID(rawValue: subscriberID))
        } else if let proto: String = row[10], let token: String = row[11] {
            recipient = .token(proto: proto, token: token)
        } else {
            throw StoreError.corruptRow("retries \(id): no recipient")
        }
        return QueuedDelivery(
            id: id,
            recipient: recipient,
            origin: DeliveryOrigin(rawValue: row[12]),
            statisticsEvent: try statisticsEvent.map { try SQLiteCodec.eventName($0, table: "retries") },
            notification: try {
                let key = ContentKey(notification: row[3], payload: row[13])
                if let content = decoded[key] { return content }
                let content = try SQLiteCodec.content(notification: key.notification, payload: key.payload, table: "retries", id: id)
                decoded[key] = content
                return content
            }(),
            silent: row[4],
            badge: row[5],
            attempts: row[6],
            maxAttempts: row[14],
            dueAt: row[7],
            publishedAt: row[8],
            lastReason: row[9],
            receiptID: row[15]
        )
    }
}
