import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Writes the batch with set-based statements over JSON arrays bound as single parameters
    /// (`json_each`), so a batch of thousands costs a dozen statements in one transaction.
    ///
    /// The `(proto, identity)` conflicts are read first and left out: an upsert that met one
    /// would abort the whole statement, and with it the batch.
    public func importSubscribers(_ batch: [ImportedSubscriber]) async throws -> SubscriberImportResult {
        let (normalized, batchConflicts) = ImportedSubscriber.normalizedBatch(batch)
        guard !normalized.isEmpty else { return SubscriberImportResult(conflicts: batchConflicts) }
        return try await pool.write { db in
            let identities = try SQLiteCodec.jsonRows(normalized.map { [.text($0.id.rawValue), .text($0.proto), .text($0.identity)] })
            let taken = try String.fetchAll(
                db.cachedStatement(sql: """
                    SELECT DISTINCT new.id FROM (
                        SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS proto, json_extract(value, '$[2]') AS identity
                        FROM json_each(?)
                    ) AS new
                    JOIN subscribers AS s ON s.proto = new.proto AND s.identity = new.identity
                    WHERE s.id <> new.id
                    """),
                arguments: [identities])
            let conflicted = Set(taken)
            let accepted = normalized.filter { !conflicted.contains($0.id.rawValue) }
            let conflicts = batchConflicts + normalized.lazy.filter { conflicted.contains($0.id.rawValue) }.map(\.id)
            guard !accepted.isEmpty else { return SubscriberImportResult(conflicts: conflicts) }

            let ids = try SQLiteCodec.jsonArray(accepted.lazy.map(\.id.rawValue))
            let existing = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count(*) FROM subscribers WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [ids]) ?? 0

            let rows = try SQLiteCodec.jsonRows(accepted.map { subscriber in
                [
                    .text(subscriber.id.rawValue), .text(subscriber.proto), .text(subscriber.token), .text(subscriber.identity),
                    .optional(subscriber.fields.lang), .optional(subscriber.fields.version), .optional(subscriber.fields.category),
                    .optional(subscriber.fields.contentAvailable), .integer(subscriber.created), .integer(subscriber.updated),
                    .optional(subscriber.fields.badge), .integer(Int64(subscriber.failures)),
                ]
            })
            // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
            // The failure counter is the imported one: 0 from another server, as a registration would
            // set it; a Herald store's own count from `herald migrate`.
            try db.cachedStatement(sql: """
                INSERT INTO subscribers (id, proto, token, identity, lang, version, category, content_available, created, updated, failures)
                SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
                       json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'),
                       json_extract(value, '$[8]'), json_extract(value, '$[9]'), json_extract(value, '$[11]')
                FROM json_each(?) WHERE true
                ON CONFLICT (id) DO UPDATE SET
                    proto = excluded.proto, token = excluded.token, identity = excluded.identity, lang = excluded.lang,
                    version = excluded.version, category = excluded.category, content_available = excluded.content_available,
                    created = excluded.created, updated = excluded.updated, failures = excluded.failures
                """)
                .execute(arguments: [rows])
            // A badge is stored in a badges row; no badge, as no row or a row without one (migration v12).
            try db.cachedStatement(sql: """
                INSERT INTO badges (subscriber_id, badge)
                SELECT json_extract(value, '$[0]'), json_extract(value, '$[10]') FROM json_each(?)
                WHERE json_extract(value, '$[10]') IS NOT NULL
                ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge WHERE badges.badge IS NOT excluded.badge
                """)
                .execute(arguments: [rows])
            try db.cachedStatement(sql: """
                UPDATE badges SET badge = NULL
                WHERE subscriber_id IN (SELECT json_extract(value, '$[0]') FROM json_each(?) WHERE json_extract(value, '$[10]') IS NULL)
                    AND badge IS NOT NULL
                """)
                .execute(arguments: [rows])

            var subscriptionRows: [[SQLiteCodec.JSONScalar]] = []
            var firstSubscribed: [String: Int64] = [:]
            for subscriber in accepted {
                for subscription in subscriber.subscriptions {
                    let name = subscription.event.rawValue
                    subscriptionRows.append([.text(subscriber.id.rawValue), .text(name), .integer(subscription.ignoreMessage ? 1 : 0)])
                    if !SQLiteCodec.isSpecial(name) {
                        firstSubscribed[name] = min(firstSubscribed[name] ?? subscriber.created, subscriber.created)
                    }
                }
            }
            let subscriptions = try SQLiteCodec.jsonRows(subscriptionRows)
            // Subscriptions the source no longer has: the subscription set is made equal, as §4.8 does.
            let removed = try String.fetchAll(
                db.cachedStatement(sql: """
                    DELETE FROM subscriptions
                    WHERE subscriber_id IN (SELECT value FROM json_each(?))
                      AND (subscriber_id, event) NOT IN (
                          SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)
                      )
                    RETURNING event
                    """),
                arguments: [ids, subscriptions])
            if !subscriptionRows.isEmpty {
                try db.cachedStatement(sql: """
                    INSERT INTO subscriptions (subscriber_id, event, ignore_message)
                    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
                    FROM json_each(?) WHERE true
                    ON CONFLICT (event, subscriber_id) DO UPDATE SET ignore_message = excluded.ignore_message
                    WHERE ignore_message <> excluded.ignore_message
                    """)
                    .execute(arguments: [subscriptions])
            }
            if !firstSubscribed.isEmpty {
                // After the subscriptions: the insert trigger counts an event's subscribers when its row is made.
                // An event dates from its earliest subscriber, whichever batch brought that one.
                try db.cachedStatement(sql: """
                    INSERT INTO events (name, created)
                    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?) WHERE true
                    ON CONFLICT (name) DO UPDATE SET created = excluded.created WHERE excluded.created < events.created
                    """)
                    .execute(arguments: [SQLiteCodec.jsonRows(firstSubscribed.map { [.text($0.key), .integer($0.value)] })])
            }
            let emptied = Set(removed.filter { !SQLiteCodec.isSpecial($0) })
            if !emptied.isEmpty {
                try db.cachedStatement(sql: """
                    DELETE FROM events
                    WHERE name IN (SELECT value FROM json_each(?))
                      AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE subscriptions.event = events.name)
                    """)
                    .execute(arguments: [SQLiteCodec.jsonArray(emptied)])
            }
            return SubscriberImportResult(
                inserted: accepted.count - existing, updated: existing, conflicts: conflicts, subscriptions: subscriptionRows.count)
        }
    }

    /// One upsert for the batch; the conditions are §14.2's for when statistics may exist.
    public func importEventStatistics(_ statistics: [ImportedEventStatistics]) async throws -> [EventName] {
        guard !statistics.isEmpty else { return [] }
        var latest: [String: ImportedEventStatistics] = [:]
        for entry in statistics {
            latest[entry.event.rawValue] = entry
        }
        let rows = try SQLiteCodec.jsonRows(latest.values.map { entry in
            [
                .text(entry.event.rawValue), .integer(entry.created), .integer(entry.total), entry.last.map { .integer($0) } ?? .null,
                entry.delivered.map { .integer($0) } ?? .null, entry.failed.map { .integer($0) } ?? .null,
            ]
        })
        let hasCounts = latest.values.contains { $0.delivered != nil || $0.failed != nil }
        let written = try await pool.write { db in
            let written = try String.fetchAll(
                db.cachedStatement(sql: """
                    INSERT INTO events (name, created, total, last, delivered, failed)
                    SELECT new.name, new.created, new.total, new.last, coalesce(new.delivered, 0), coalesce(new.failed, 0) FROM (
                        SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS created,
                               json_extract(value, '$[2]') AS total, json_extract(value, '$[3]') AS last,
                               json_extract(value, '$[4]') AS delivered, json_extract(value, '$[5]') AS failed
                        FROM json_each(?)
                    ) AS new
                    WHERE CASE
                        WHEN new.name = 'broadcast' THEN EXISTS (SELECT 1 FROM subscribers)
                        WHEN substr(new.name, 1, 8) = 'unicast:'
                            THEN EXISTS (SELECT 1 FROM subscribers WHERE id = substr(new.name, 9))
                        ELSE EXISTS (SELECT 1 FROM subscriptions WHERE event = new.name)
                    END
                    ON CONFLICT (name) DO UPDATE SET created = excluded.created, total = excluded.total, last = excluded.last
                    RETURNING name
                    """),
                arguments: [rows])
            // Delivery counts where given (`herald migrate`), on the rows just written only. A second
            // statement because an upsert's update cannot tell a missing count from the 0 inserted.
            if !written.isEmpty, hasCounts {
                try db.cachedStatement(sql: """
                    UPDATE events SET delivered = coalesce(new.delivered, events.delivered), failed = coalesce(new.failed, events.failed)
                    FROM (
                        SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[4]') AS delivered,
                               json_extract(value, '$[5]') AS failed
                        FROM json_each(?)
                    ) AS new
                    WHERE events.name = new.name AND new.name IN (SELECT value FROM json_each(?))
                    """)
                    .execute(arguments: [rows, SQLiteCodec.jsonArray(written)])
            }
            return written
        }
        return try written.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { try SQLiteCodec.eventName($0, table: "events") }
    }
}
