import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Checks the audience with `EXISTS` (never counting it), then stores the job and
    /// bumps the statistics in the same transaction (§6.1).
    ///
    /// Statistics rows of special names are created here, on their first publish (§14.2).
    public func enqueue(
        _ audience: PublishAudience, content: DeliveryContent, origin: DeliveryOrigin, now: Int64
    ) async throws -> EnqueueResult {
        // Concurrent publishes share one transaction (``SQLiteGroupCommit``), each in a savepoint.
        let result = try await groupCommit.write { db in
            try Self.enqueueJob(audience, content: content, origin: origin, now: now, in: db)
        }
        if case .queued = result { wakeUpHub.yield(.jobs) }
        return result
    }

    /// Enqueues a job inside the caller's transaction: ``enqueue(_:content:origin:now:)``'s work.
    static func enqueueJob(
        _ audience: PublishAudience, content: DeliveryContent, origin: DeliveryOrigin, now: Int64, in db: Database
    ) throws -> EnqueueResult {
        switch audience {
        case .subscribers(let event):
            guard try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM subscriptions WHERE event = ?)"),
                arguments: [event.rawValue]
            ) == true else { return .noAudience }
        case .broadcast:
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM subscribers)")) == true else {
                return .noAudience
            }
        case .unicast(let id), .test(let id):
            guard try subscriberExists(id.rawValue, in: db) else { return .unknownSubscriber }
        case .groups(let events, let proto):
            let list = try SQLiteCodec.jsonArray(events.map(\.rawValue))
            guard try groupsHaveAudience(list, proto: proto, in: db) else { return .noAudience }
            try countGroupsPublish(list, now: now, in: db)
        }
        let (kind, value) = try storedAudience(audience)
        if let statistics = audience.statisticsEvent {
            try db.cachedStatement(sql: """
                INSERT INTO events (name, created, last, total) VALUES (?, ?, ?, 1)
                ON CONFLICT (name) DO UPDATE SET total = total + 1, last = excluded.last
                """)
                .execute(arguments: [statistics.rawValue, now, now])
        }
        // Encoded only once there is an audience: a publish nobody is subscribed to (a
        // common case, and what `herald-bench api` measures) spent most of its time in
        // `JSONEncoder` for a job it never stored.
        let encoded = try SQLiteCodec.encode(content)
        try db.cachedStatement(sql: """
            INSERT INTO publish_jobs (audience_kind, audience_value, notification, payload, published_at, origin, publish_id)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
            .execute(arguments: [kind, value, encoded.notification, encoded.payload, now, origin.rawValue, content.publishID])
        return .queued(jobID: db.lastInsertedRowID)
    }

    /// Leases the oldest free jobs with one `UPDATE … RETURNING`; SQLite's single writer
    /// makes the selection and the lease one atomic step.
    public func claimJobs(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [PublishJob] {
        guard limit > 0 else { return [] }
        return try await pool.write { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    UPDATE publish_jobs SET lease_owner = ?, lease_expires = ?
                    WHERE id IN (
                        SELECT id FROM publish_jobs
                        WHERE lease_expires IS NULL OR lease_expires < ?
                        ORDER BY id LIMIT ?
                    )
                    RETURNING id, audience_kind, audience_value, notification, published_at, cursor, pending, origin, payload, end_id
                    """),
                arguments: [lease.owner, lease.expiresAt, nowMillis, limit]
            )
            let jobs = try rows.map(Self.job).sorted { $0.id < $1.id }
            try Self.markStarted(jobs.compactMap(\.receiptID), now: nowMillis / 1000, in: db)
            return jobs
        }
    }

    /// Reads one keyset page: an index range of the event's subscriptions joined to their
    /// subscribers, a range of the subscribers table for broadcast, or a merge of several events'
    /// ranges for groups.
    public func audience(of job: PublishJob, after cursor: SubscriberID?, limit: Int) async throws -> [AudienceMember] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            let columns = SQLiteCodec.subscriberColumns("s")
            // Two statement shapes rather than `? IS NULL OR id > ?`, which would defeat the index.
            var after: StatementArguments = []
            if let cursor { after += [cursor.rawValue] }
            switch job.audience {
            case .subscribers(let event):
                // CROSS JOIN fixes the join order: walk the subscription range, look each subscriber up.
                let sql = """
                    SELECT \(columns), sub.ignore_message
                    FROM subscriptions AS sub CROSS JOIN subscribers AS s ON s.id = sub.subscriber_id
                    WHERE sub.event = ?\(cursor == nil ? "" : " AND sub.subscriber_id > ?")
                    ORDER BY sub.subscriber_id LIMIT ?
                    """
                // A cursor decodes each row in place instead of copying the page's rows first.
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: sql),
                    arguments: [event.rawValue] + after + [limit]
                )
                var members: [AudienceMember] = []
                members.reserveCapacity(min(limit, 10_000))
                while let row = try rows.next() {
                    members.append(AudienceMember(subscriber: SQLiteCodec.subscriber(row), silent: row[SQLiteCodec.subscriberColumnCount]))
                }
                return members
            case .broadcast:
                let sql = """
                    SELECT \(columns) FROM subscribers AS s
                    \(cursor == nil ? "" : "WHERE s.id > ?")
                    ORDER BY s.id LIMIT ?
                    """
                let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: after + [limit])
                var members: [AudienceMember] = []
                members.reserveCapacity(min(limit, 10_000))
                while let row = try rows.next() {
                    members.append(AudienceMember(subscriber: SQLiteCodec.subscriber(row), silent: false))
                }
                return members
            case .unicast(let id), .test(let id):
                if let cursor, !(cursor < id) { return [] }
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(columns) FROM subscribers AS s WHERE s.id = ?"),
                    arguments: [id.rawValue]
                )
                return row.map { [AudienceMember(subscriber: SQLiteCodec.subscriber($0), silent: false)] } ?? []
            case .groups(let events, let proto):
                return try Self.groupsPage(events, proto: proto, after: cursor, limit: limit, in: db)
            }
        }
    }

    /// Moves the cursor and renews the lease, only while the caller still owns the job.
    public func checkpoint(jobID: Int64, cursor: SubscriberID, lease: Lease) async throws -> Bool {
        try await pool.write { db in
            try db.cachedStatement(sql: "UPDATE publish_jobs SET cursor = ?, pending = NULL, lease_expires = ? WHERE id = ? AND lease_owner = ?")
                .execute(arguments: [cursor.rawValue, lease.expiresAt, jobID, lease.owner])
            return db.changesCount > 0
        }
    }

    /// Deletes the job only if `owner` still holds it: a worker that lost its lease must not
    /// remove a job another worker is still fanning out.
    public func completeJob(jobID: Int64, owner: String) async throws {
        let now = clock.nowSeconds()
        try await pool.write { db in
            let publish = try String.fetchOne(
                db.cachedStatement(sql: "SELECT publish_id FROM publish_jobs WHERE id = ? AND lease_owner = ?"), arguments: [jobID, owner])
            try db.cachedStatement(sql: "DELETE FROM publish_jobs WHERE id = ? AND lease_owner = ?")
                .execute(arguments: [jobID, owner])
            if let publish { try Self.finishPublishes([publish], now: now, in: db) }
        }
    }

    /// Clears the lease columns of everything `owner` holds, in one transaction.
    public func releaseLeases(owner: String) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "UPDATE publish_jobs SET lease_owner = NULL, lease_expires = NULL WHERE lease_owner = ?")
                .execute(arguments: [owner])
            try db.cachedStatement(sql: "UPDATE retries SET lease_owner = NULL, lease_expires = NULL WHERE lease_expires IS NOT NULL AND lease_owner = ?")
                .execute(arguments: [owner])
        }
    }

    /// Counts both queues in one read snapshot.
    public func backlog() async throws -> Backlog {
        try await pool.read { db in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT (SELECT count(*) FROM publish_jobs), (SELECT count(*) FROM retries)")
            )
            return Backlog(jobs: row?[0] ?? 0, retries: row?[1] ?? 0)
        }
    }

    /// Reads a job row selected as `id, audience_kind, audience_value, notification, published_at, cursor, pending, origin,
    /// payload, end_id`.
    static func job(_ row: Row) throws -> PublishJob {
        let id: Int64 = row[0]
        let audience = try storedAudience(kind: row[1], value: row[2], row: "publish_jobs \(id)", jobID: id)
        let cursor: String? = row[5]
        let end: String? = row[9]
        let pending = try SQLiteCodec.pendingMembers(row[6], jobID: id)
        return PublishJob(
            id: id,
            audience: audience,
            origin: DeliveryOrigin(rawValue: row[7]),
            content: try SQLiteCodec.content(notification: row[3], payload: row[8], table: "publish_jobs", id: id),
            publishedAt: row[4],
            cursor: cursor.map(SubscriberID.init(rawValue:)),
            pending: pending,
            end: end.map(SubscriberID.init(rawValue:))
        )
    }

    /// The audience stored as `audience_kind` and `audience_value` (``storedAudience(_:)``'s inverse).
    static func storedAudience(kind: String, value: String?, row: String, jobID: Int64) throws -> PublishAudience {
        switch (kind, value) {
        case ("subscribers", let name?): .subscribers(try SQLiteCodec.eventName(name, table: "publish_jobs"))
        case ("broadcast", _): .broadcast
        case ("unicast", let id?): .unicast(SubscriberID(rawValue: id))
        case ("test", let id?): .test(SubscriberID(rawValue: id))
        case (groupsKind, let list?): try groupsAudience(list, jobID: jobID)
        default: throw StoreError.corruptRow("\(row): unknown audience \(kind)")
        }
    }
}
