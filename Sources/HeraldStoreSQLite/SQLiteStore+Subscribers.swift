import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Refreshes the subscriber with the registration's `(proto, identity)` in one
    /// `UPDATE … RETURNING` (the common case: every app launch), else inserts a new one,
    /// drawing another id on the rare collision. Concurrent registrations share one transaction
    /// (``SQLiteGroupCommit``), each in a savepoint of its own.
    public func register(_ registration: SubscriberRegistration, now: Int64) async throws -> (subscriber: Subscriber, created: Bool) {
        let makeID = self.makeID
        return try await groupCommit.write { db in
            try Self.register(registration, now: now, makeID: makeID, in: db)
        }
    }

    /// Registers many subscribers in one transaction, each exactly as ``register(_:now:)`` would,
    /// and subscribes each (not silent) to `event` when one is given.
    ///
    /// One transaction for thousands of rows is what makes seeding or importing a large
    /// audience take seconds instead of hours of individual commits.
    public func registerMany(_ registrations: [SubscriberRegistration], subscribingTo event: EventName?, now: Int64) async throws -> [SubscriberID] {
        let makeID = self.makeID
        return try await pool.write { db in
            var ids: [SubscriberID] = []
            ids.reserveCapacity(registrations.count)
            for registration in registrations {
                let (subscriber, _) = try Self.register(registration, now: now, makeID: makeID, in: db)
                if let event {
                    try db.cachedStatement(sql: "UPDATE subscriptions SET ignore_message = 0 WHERE event = ? AND subscriber_id = ?")
                        .execute(arguments: [event.rawValue, subscriber.id.rawValue])
                    if db.changesCount == 0 {
                        try Self.insertSubscription(subscriber.id.rawValue, to: event.rawValue, ignoreMessage: false, now: now, in: db)
                    }
                }
                ids.append(subscriber.id)
            }
            return ids
        }
    }

    /// The body of a registration, inside a write transaction.
    static func register(
        _ registration: SubscriberRegistration, now: Int64, makeID: @Sendable () -> SubscriberID, in db: Database
    ) throws -> (subscriber: Subscriber, created: Bool) {
        let fields = registration.fields
        let refreshed = try Row.fetchOne(
            db.cachedStatement(sql: """
                UPDATE subscribers SET
                    token = ?,
                    lang = coalesce(?, lang),
                    version = coalesce(?, version),
                    category = coalesce(?, category),
                    content_available = coalesce(?, content_available),
                    updated = ?,
                    failures = 0
                WHERE proto = ? AND identity = ?
                RETURNING \(SQLiteCodec.subscriberColumns())
                """),
            arguments: [
                registration.token, fields.lang, fields.version, fields.category, fields.contentAvailable,
                now, registration.proto, registration.identity,
            ]
        )
        if let refreshed {
            // RETURNING read the badge before this statement's change to it.
            var subscriber = SQLiteCodec.subscriber(refreshed)
            if let badge = fields.badge {
                try setBadge(badge, of: subscriber.id, in: db)
                subscriber.fields.badge = badge
            }
            return (subscriber, false)
        }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO subscribers (id, proto, token, identity, lang, version, category, content_available, created, updated, failures)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
            ON CONFLICT (id) DO NOTHING
            """)
        for _ in 0..<idDraws {
            let id = makeID()
            try insert.execute(arguments: [
                id.rawValue, registration.proto, registration.token, registration.identity,
                fields.lang, fields.version, fields.category, fields.contentAvailable, now, now,
            ])
            if db.changesCount > 0 {
                // No badges row until it has a badge (migration v12).
                if let badge = fields.badge { try setBadge(badge, of: id, in: db) }
                let subscriber = Subscriber(id: id, proto: registration.proto, token: registration.token, fields: fields, created: now, updated: now)
                return (subscriber, true)
            }
        }
        throw StoreError.idExhausted
    }

    /// Stores `badge` as the badge of the subscriber `id`, which exists.
    private static func setBadge(_ badge: String, of id: SubscriberID, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO badges (subscriber_id, badge) VALUES (?, ?)
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
            """)
            .execute(arguments: [id.rawValue, badge])
    }

    /// Reads one subscriber by primary key.
    public func subscriber(_ id: SubscriberID) async throws -> Subscriber? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(SQLiteCodec.subscriberColumns()) FROM subscribers WHERE id = ?"),
                arguments: [id.rawValue]
            ).map { SQLiteCodec.subscriber($0) }
        }
    }

    /// Reads the subscriber through the `(proto, identity)` unique index.
    public func subscriber(proto: String, identity: String) async throws -> Subscriber? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(SQLiteCodec.subscriberColumns()) FROM subscribers WHERE proto = ? AND identity = ?"),
                arguments: [proto, identity]
            ).map { SQLiteCodec.subscriber($0) }
        }
    }

    /// Merges the given fields in SQL (`coalesce`), so a ping is one statement with no read.
    public func updateSubscriber(_ id: SubscriberID, fields: SubscriberFields, now: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.cachedStatement(sql: """
                UPDATE subscribers SET
                    lang = coalesce(?, lang),
                    version = coalesce(?, version),
                    category = coalesce(?, category),
                    content_available = coalesce(?, content_available),
                    updated = ?,
                    failures = 0
                WHERE id = ?
                """)
                .execute(arguments: [fields.lang, fields.version, fields.category, fields.contentAvailable, now, id.rawValue])
            guard db.changesCount > 0 else { return false }
            if let badge = fields.badge { try Self.setBadge(badge, of: id, in: db) }
            return true
        }
    }

    /// Deletes the subscriber with the full §4.5 cascade.
    public func deleteSubscriber(_ id: SubscriberID) async throws -> Bool {
        try await pool.write { db in
            try !Self.deleteSubscribers([id.rawValue], in: db).isEmpty
        }
    }

    /// Writes each subscriber's badge incremented from the value the caller read, where the stored
    /// badge still has that value; the others (changed or reset since) are read and incremented in
    /// the same transaction. ``BadgeLogic`` holds the rule.
    ///
    /// One prepared statement per subscriber: for a page of a thousand it costs less than one
    /// statement over a JSON array of them, whose building and parsing cost more than the steps.
    public func incrementBadges(expecting expectations: [BadgeExpectation]) async throws -> [BadgeIncrement] {
        guard !expectations.isEmpty else { return [] }
        let previous = try await pool.write { db -> [String??] in
            let update = try SQLiteTextStatement("UPDATE badges SET badge = ? WHERE subscriber_id = ? AND badge IS ?", in: db)
            // A subscriber without a badge may have no row yet (migration v12), or one without a
            // badge; one deleted since has neither, and gets none.
            let first = try SQLiteTextStatement("""
                INSERT INTO badges (subscriber_id, badge) SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM subscribers WHERE id = ?1)
                ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge WHERE badges.badge IS NULL
                """, in: db)
            var result: [String??] = []
            result.reserveCapacity(expectations.count)
            var stale: [Int] = []
            for expectation in expectations {
                let incremented = BadgeLogic.incrementedStoredBadge(expectation.storedBadge)
                let changes = if let stored = expectation.storedBadge {
                    try update.execute(incremented, expectation.id.rawValue, stored)
                } else {
                    try first.execute(expectation.id.rawValue, incremented)
                }
                if changes > 0 {
                    result.append(.some(expectation.storedBadge))
                } else {
                    stale.append(result.count)
                    result.append(nil)
                }
            }
            guard !stale.isEmpty else { return result }
            // An id listed twice was written at its first listing, which answers for both: it is
            // incremented once. The rest changed meanwhile, or are gone.
            var written: [SubscriberID: String?] = [:]
            for (index, expectation) in expectations.enumerated() where result[index] != nil && written[expectation.id] == nil {
                written[expectation.id] = .some(expectation.storedBadge)
            }
            let changed = stale.map { expectations[$0].id }.filter { written[$0] == nil }
            let reread = changed.isEmpty ? [:] : try Self.incrementBadges(reading: changed, in: db)
            for index in stale {
                let id = expectations[index].id
                result[index] = written[id] ?? reread[id]
            }
            return result
        }
        return previous.map(BadgeIncrement.init(previous:))
    }

    /// Reads the badges of `ids` and writes them incremented, with two statements for all of them;
    /// ids of subscribers that no longer exist are left out.
    private static func incrementBadges(reading ids: [SubscriberID], in db: Database) throws -> [SubscriberID: String?] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT s.id, b.badge FROM subscribers AS s LEFT JOIN badges AS b ON b.subscriber_id = s.id
                WHERE s.id IN (SELECT value FROM json_each(?))
                """),
            arguments: [SQLiteCodec.jsonArray(ids.lazy.map(\.rawValue))]
        )
        guard !rows.isEmpty else { return [:] }
        var before: [SubscriberID: String?] = [:]
        before.reserveCapacity(rows.count)
        var updates: [[SQLiteCodec.JSONScalar]] = []
        updates.reserveCapacity(rows.count)
        for row in rows {
            let id: String = row[0]
            let badge: String? = row[1]
            before[SubscriberID(rawValue: id)] = .some(badge)
            updates.append([.text(id), .text(BadgeLogic.incrementedStoredBadge(badge))])
        }
        // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
        try db.cachedStatement(sql: """
            INSERT INTO badges (subscriber_id, badge)
            SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?) WHERE true
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
            """)
            .execute(arguments: [SQLiteCodec.jsonRows(updates)])
        return before
    }
}
