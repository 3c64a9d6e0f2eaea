import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Writes the batch in one transaction with set-based statements: the subscribers from one
    /// `jsonb_to_recordset` document, subscriptions and events from `unnest` arrays.
    ///
    /// The `(proto, identity)` conflicts are read first and left out: an upsert that met one
    /// would abort the statement, and with it the batch.
    public func importSubscribers(_ batch: [ImportedSubscriber]) async throws -> SubscriberImportResult {
        let (normalized, batchConflicts) = ImportedSubscriber.normalizedBatch(batch)
        guard !normalized.isEmpty else { return SubscriberImportResult(conflicts: batchConflicts) }
        let logger = self.logger
        return try await withTransaction { connection in
            let candidateIDs = normalized.map(\.id.rawValue)
            let protos = normalized.map(\.proto)
            let identitiesOf = normalized.map(\.identity)
            let taken = try await connection.query("""
                SELECT DISTINCT new.id FROM unnest(\(candidateIDs)::text[], \(protos)::text[], \(identitiesOf)::text[]) AS new(id, proto, identity)
                JOIN subscribers AS s ON s.proto = new.proto AND s.identity = new.identity
                WHERE s.id <> new.id
                """, logger: logger).map { try $0.decode(String.self) }
            let conflicted = Set(taken)
            let accepted = normalized.filter { !conflicted.contains($0.id.rawValue) }
            let conflicts = batchConflicts + normalized.lazy.filter { conflicted.contains($0.id.rawValue) }.map(\.id)
            guard !accepted.isEmpty else { return SubscriberImportResult(conflicts: conflicts) }

            let ids = accepted.map(\.id.rawValue)
            let existing = try await connection.query(
                "SELECT count(*) FROM subscribers WHERE id = ANY(\(ids)::text[])", logger: logger
            ).map { try $0.decode(Int64.self) }.first ?? 0

            let rows = try PostgresCodec.jsonRecords(SubscriberImportBatch(accepted).rows)
            // The failure counter is the imported one: 0 from another server, as a registration would
            // set it; a Herald store's own count from `herald migrate`.
            try await connection.query("""
                INSERT INTO subscribers (id, proto, token, identity, lang, version, category, content_available, created, updated, failures)
                SELECT r.id, r.proto, r.token, r.identity, r.lang, r.version, r.category, r.content_available, r.created, r.updated,
                       r.failures
                FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                    id text, proto text, token text, identity text, lang text, version text, category text, content_available text,
                    created bigint, updated bigint, failures integer)
                ON CONFLICT (id) DO UPDATE SET
                    proto = excluded.proto, token = excluded.token, identity = excluded.identity, lang = excluded.lang,
                    version = excluded.version, category = excluded.category, content_available = excluded.content_available,
                    created = excluded.created, updated = excluded.updated, failures = excluded.failures
                """, logger: logger)
            // A badge row only once there is a badge, as registrations make them; an imported
            // subscriber without one clears the badge it had.
            try await connection.query("""
                INSERT INTO badges (subscriber_id, badge)
                SELECT r.id, r.badge FROM jsonb_to_recordset(\(rows)::jsonb) AS r(id text, badge text)
                WHERE r.badge IS NOT NULL OR EXISTS (SELECT 1 FROM badges WHERE badges.subscriber_id = r.id)
                ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
                WHERE badges.badge IS DISTINCT FROM excluded.badge
                """, logger: logger)

            var subscriberOf: [String] = []
            var eventOf: [String] = []
            var silentOf: [Bool] = []
            var firstSubscribed: [String: Int64] = [:]
            for subscriber in accepted {
                for subscription in subscriber.subscriptions {
                    let name = subscription.event.rawValue
                    subscriberOf.append(subscriber.id.rawValue)
                    eventOf.append(name)
                    silentOf.append(subscription.ignoreMessage)
                    if !PostgresCodec.isSpecial(name) {
                        firstSubscribed[name] = min(firstSubscribed[name] ?? subscriber.created, subscriber.created)
                    }
                }
            }
            // Subscriptions the source no longer has: the subscription set is made equal, as §4.8 does.
            let removed = try await connection.query("""
                DELETE FROM subscriptions AS s
                WHERE s.subscriber_id = ANY(\(ids)::text[])
                  AND NOT EXISTS (
                      SELECT 1 FROM unnest(\(subscriberOf)::text[], \(eventOf)::text[]) AS w(subscriber_id, event)
                      WHERE w.subscriber_id = s.subscriber_id AND w.event = s.event
                  )
                RETURNING s.event
                """, logger: logger).map { try $0.decode(String.self) }
            if !subscriberOf.isEmpty {
                try await connection.query("""
                    INSERT INTO subscriptions (event, subscriber_id, ignore_message)
                    SELECT w.event, w.subscriber_id, w.ignore_message
                    FROM unnest(\(eventOf)::text[], \(subscriberOf)::text[], \(silentOf)::bool[]) AS w(event, subscriber_id, ignore_message)
                    ON CONFLICT (event, subscriber_id) DO UPDATE SET ignore_message = excluded.ignore_message
                    WHERE subscriptions.ignore_message IS DISTINCT FROM excluded.ignore_message
                    """, logger: logger)
            }
            if !firstSubscribed.isEmpty {
                // Sorted, so that two importers never lock the same events in opposite orders. An event dates
                // from its earliest subscriber, whichever batch brought that one.
                let ordered = firstSubscribed.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                let names = ordered.map(\.key)
                let created = ordered.map(\.value)
                try await connection.query("""
                    INSERT INTO events (name, created)
                    SELECT e.name, e.created FROM unnest(\(names)::text[], \(created)::bigint[]) AS e(name, created)
                    ON CONFLICT (name) DO UPDATE SET created = excluded.created WHERE excluded.created < events.created
                    """, logger: logger)
            }
            let emptied = Set(removed.filter { !PostgresCodec.isSpecial($0) }).sorted()
            if !emptied.isEmpty {
                try await connection.query("""
                    DELETE FROM events WHERE name = ANY(\(emptied)::text[])
                      AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE subscriptions.event = events.name)
                    """, logger: logger)
            }
            return SubscriberImportResult(
                inserted: accepted.count - Int(existing), updated: Int(existing), conflicts: conflicts, subscriptions: subscriberOf.count)
        }
    }

    /// One upsert for the batch; the conditions are §14.2's for when statistics may exist.
    public func importEventStatistics(_ statistics: [ImportedEventStatistics]) async throws -> [EventName] {
        guard !statistics.isEmpty else { return [] }
        var latest: [String: ImportedEventStatistics] = [:]
        for entry in statistics {
            latest[entry.event.rawValue] = entry
        }
        let ordered = latest.values.sorted { $0.event.rawValue.utf8.lexicographicallyPrecedes($1.event.rawValue.utf8) }
        let names = ordered.map(\.event.rawValue)
        let created = ordered.map(\.created)
        let totals = ordered.map(\.total)
        // `unnest` binds no optionals: a missing `last` travels as a flag beside a placeholder.
        let lasts = ordered.map { $0.last ?? 0 }
        let hasLast = ordered.map { $0.last != nil }
        let logger = self.logger
        let delivered = ordered.map { $0.delivered ?? 0 }
        let hasDelivered = ordered.map { $0.delivered != nil }
        let failed = ordered.map { $0.failed ?? 0 }
        let hasFailed = ordered.map { $0.failed != nil }
        let written = try await withTransaction { connection in
            let written = try await connection.query("""
                INSERT INTO events (name, created, total, last)
                SELECT e.name, e.created, e.total, CASE WHEN e.has_last THEN e.last END
                FROM unnest(\(names)::text[], \(created)::bigint[], \(totals)::bigint[], \(lasts)::bigint[], \(hasLast)::bool[])
                    AS e(name, created, total, last, has_last)
                WHERE CASE
                    WHEN e.name = 'broadcast' THEN EXISTS (SELECT 1 FROM subscribers)
                    WHEN left(e.name, 8) = 'unicast:'
                        THEN EXISTS (SELECT 1 FROM subscribers WHERE id = substr(e.name, 9))
                    ELSE EXISTS (SELECT 1 FROM subscriptions WHERE event = e.name)
                END
                ON CONFLICT (name) DO UPDATE SET created = excluded.created, total = excluded.total, last = excluded.last
                RETURNING name
                """, logger: logger).map { try $0.decode(String.self) }
            // Delivery counts where given (`herald migrate`), on the rows just written only. A second
            // statement because an upsert's update cannot tell a missing count from a 0.
            if !written.isEmpty, hasDelivered.contains(true) || hasFailed.contains(true) {
                try await connection.query("""
                    UPDATE events SET
                        delivered = CASE WHEN e.has_delivered THEN e.delivered ELSE events.delivered END,
                        failed = CASE WHEN e.has_failed THEN e.failed ELSE events.failed END
                    FROM unnest(
                        \(names)::text[], \(delivered)::bigint[], \(hasDelivered)::bool[], \(failed)::bigint[], \(hasFailed)::bool[]
                    ) AS e(name, delivered, has_delivered, failed, has_failed)
                    WHERE events.name = e.name AND (e.has_delivered OR e.has_failed) AND e.name = ANY(\(written)::text[])
                    """, logger: logger)
            }
            return written
        }
        return try written.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { try PostgresCodec.eventName($0, table: "events") }
    }
}
