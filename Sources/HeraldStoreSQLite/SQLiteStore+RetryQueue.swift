import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Inserts the entries in one transaction, skipping those whose subscriber was deleted
    /// meanwhile: a retry may not outlive its subscriber (§4.5), and the foreign key would
    /// otherwise fail the whole batch.
    public func scheduleRetries(_ entries: [RetryEntry]) async throws {
        guard !entries.isEmpty else { return }
        let prepared = try Self.encodedRetries(entries)
        try await pool.write { db in
            try Self.insertRetries(prepared, in: db)
        }
    }

    /// The retries with their notifications encoded, each distinct one once, outside any transaction.
    static func encodedRetries(_ entries: [RetryEntry]) throws -> [(entry: RetryEntry, notification: Data)] {
        // A page of failures usually shares one notification: encode it once.
        var encoded: [HeraldCore.PublishedEvent: Data] = [:]
        var rows: [(entry: RetryEntry, notification: Data)] = []
        rows.reserveCapacity(entries.count)
        for entry in entries {
            let data: Data
            if let cached = encoded[entry.notification] {
                data = cached
            } else {
                data = try SQLiteCodec.encode(entry.notification)
                encoded[entry.notification] = data
            }
            rows.append((entry, data))
        }
        return rows
    }

    /// Inserts encoded retries inside a caller's transaction, skipping those whose subscriber is gone.
    static func insertRetries(_ prepared: [(entry: RetryEntry, notification: Data)], in db: Database) throws {
        guard !prepared.isEmpty else { return }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO retries (subscriber_id, statistics_event, notification, silent, badge, attempts, due_at, published_at, last_reason)
            SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
            WHERE EXISTS (SELECT 1 FROM subscribers WHERE id = ?)
            """)
        for (entry, notification) in prepared {
            try insert.execute(arguments: [
                entry.subscriberID.rawValue, entry.statisticsEvent?.rawValue, notification, entry.silent, entry.badge,
                entry.attempts, entry.dueAt, entry.publishedAt, entry.lastReason, entry.subscriberID.rawValue,
            ])
        }
    }

    /// Leases the earliest due, free retries with one `UPDATE … RETURNING`.
    public func claimDueRetries(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [RetryEntry] {
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
                    RETURNING id, subscriber_id, statistics_event, notification, silent, badge, attempts, due_at, published_at, last_reason
                    """),
                arguments: [lease.owner, lease.expiresAt, nowMillis, nowMillis, limit]
            )
            return try rows.map(Self.retry).sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
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

    /// Reads a retry row selected as `id, subscriber_id, statistics_event, notification, silent,
    /// badge, attempts, due_at, published_at, last_reason`.
    static func retry(_ row: Row) throws -> RetryEntry {
        let id: Int64 = row[0]
        let statisticsEvent: String? = row[2]
        return RetryEntry(
            id: id,
            subscriberID: SubscriberID(rawValue: row[1]),
            statisticsEvent: try statisticsEvent.map { try SQLiteCodec.eventName($0, table: "retries") },
            notification: try SQLiteCodec.notification(row[3], table: "retries", id: id),
            silent: row[4],
            badge: row[5],
            attempts: row[6],
            dueAt: row[7],
            publishedAt: row[8],
            lastReason: row[9]
        )
    }
}
