import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Refreshes the subscriber with the registration's `(proto, identity)` in one
    /// `UPDATE … RETURNING` (the common case: every app launch), else inserts a new one, drawing
    /// another id on the rare collision.
    public func register(_ registration: SubscriberRegistration, now: Int64) async throws -> (subscriber: Subscriber, created: Bool) {
        let makeID = self.makeID
        let logger = self.logger
        return try await withTransaction { connection in
            try await Self.register(registration, now: now, makeID: makeID, on: connection, logger: logger)
        }
    }

    /// Registers many subscribers in one transaction, each exactly as ``register(_:now:)`` would,
    /// and subscribes each (not silent) to `event` when one is given.
    public func registerMany(_ registrations: [SubscriberRegistration], subscribingTo event: EventName?, now: Int64) async throws -> [SubscriberID] {
        let makeID = self.makeID
        let logger = self.logger
        return try await withTransaction { connection in
            var ids: [SubscriberID] = []
            ids.reserveCapacity(registrations.count)
            for registration in registrations {
                let (subscriber, _) = try await Self.register(registration, now: now, makeID: makeID, on: connection, logger: logger)
                ids.append(subscriber.id)
            }
            if let event, !ids.isEmpty {
                // One statement for every subscription of the batch.
                let raw = ids.map(\.rawValue)
                try await connection.query("""
                    INSERT INTO subscriptions (event, subscriber_id, ignore_message)
                    SELECT \(event.rawValue), id, false FROM unnest(\(raw)::text[]) AS id
                    ON CONFLICT (event, subscriber_id) DO UPDATE SET ignore_message = false
                    """, logger: logger)
                try await Self.createEventRow(event.rawValue, now: now, on: connection, logger: logger)
            }
            return ids
        }
    }

    /// The body of a registration, inside a transaction.
    static func register(
        _ registration: SubscriberRegistration, now: Int64, makeID: @Sendable () -> SubscriberID, on connection: PostgresConnection, logger: Logger
    ) async throws -> (subscriber: Subscriber, created: Bool) {
        let fields = registration.fields
        func refresh() async throws -> Subscriber? {
            let rows = try await connection.query("""
                WITH s AS (
                    UPDATE subscribers SET
                        token = \(registration.token),
                        lang = coalesce(\(fields.lang), lang),
                        version = coalesce(\(fields.version), version),
                        category = coalesce(\(fields.category), category),
                        content_available = coalesce(\(fields.contentAvailable), content_available),
                        updated = \(now),
                        failures = 0
                    WHERE proto = \(registration.proto) AND identity = \(registration.identity)
                    RETURNING *
                )
                SELECT \(unescaped: PostgresCodec.subscriberColumns) FROM s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
                """, logger: logger).collect()
            guard let row = rows.first else { return nil }
            var subscriber = try PostgresCodec.subscriber(row)
            if let badge = fields.badge {
                try await setBadge(badge, of: subscriber.id, on: connection, logger: logger)
                subscriber.fields.badge = badge
            }
            return subscriber
        }
        if let subscriber = try await refresh() { return (subscriber, false) }
        for _ in 0..<idDraws {
            let id = makeID()
            // `DO NOTHING` on any conflict: a taken id draws again; the same identity registered by
            // another node meanwhile is refreshed instead.
            let rows = try await connection.query("""
                WITH s AS (
                    INSERT INTO subscribers (id, proto, token, identity, lang, version, category, content_available, created, updated, failures)
                    VALUES (\(id.rawValue), \(registration.proto), \(registration.token), \(registration.identity), \(fields.lang),
                            \(fields.version), \(fields.category), \(fields.contentAvailable), \(now), \(now), 0)
                    ON CONFLICT DO NOTHING
                    RETURNING id
                )
                INSERT INTO badges (subscriber_id, badge) SELECT id, \(fields.badge) FROM s RETURNING subscriber_id
                """, logger: logger).collect()
            if !rows.isEmpty {
                let subscriber = Subscriber(id: id, proto: registration.proto, token: registration.token, fields: fields, created: now, updated: now)
                return (subscriber, true)
            }
            if let subscriber = try await refresh() { return (subscriber, false) }
        }
        throw StoreError.idExhausted
    }

    /// Stores `badge` as the badge of the subscriber `id`.
    static func setBadge(_ badge: String, of id: SubscriberID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE badges SET badge = \(badge) WHERE subscriber_id = \(id.rawValue)", logger: logger)
    }

    /// Reads one subscriber by primary key.
    public func subscriber(_ id: SubscriberID) async throws -> Subscriber? {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                SELECT \(unescaped: PostgresCodec.subscriberColumns) FROM subscribers AS s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
                WHERE s.id = \(id.rawValue)
                """, logger: logger).map(PostgresCodec.subscriber).first
        }
    }

    /// Reads the subscriber through the `(proto, identity)` unique index.
    public func subscriber(proto: String, identity: String) async throws -> Subscriber? {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                SELECT \(unescaped: PostgresCodec.subscriberColumns) FROM subscribers AS s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
                WHERE s.proto = \(proto) AND s.identity = \(identity)
                """, logger: logger).map(PostgresCodec.subscriber).first
        }
    }

    /// Merges the given fields in SQL (`coalesce`), so a ping is one statement with no read.
    public func updateSubscriber(_ id: SubscriberID, fields: SubscriberFields, now: Int64) async throws -> Bool {
        let logger = self.logger
        return try await withTransaction { connection in
            let rows = try await connection.query("""
                UPDATE subscribers SET
                    lang = coalesce(\(fields.lang), lang),
                    version = coalesce(\(fields.version), version),
                    category = coalesce(\(fields.category), category),
                    content_available = coalesce(\(fields.contentAvailable), content_available),
                    updated = \(now),
                    failures = 0
                WHERE id = \(id.rawValue)
                RETURNING id
                """, logger: logger).collect()
            guard !rows.isEmpty else { return false }
            if let badge = fields.badge { try await Self.setBadge(badge, of: id, on: connection, logger: logger) }
            return true
        }
    }

    /// Deletes the subscriber with the full §4.5 cascade.
    public func deleteSubscriber(_ id: SubscriberID) async throws -> Bool {
        let logger = self.logger
        return try await withTransaction { connection in
            try await !Self.deleteSubscribers([id.rawValue], on: connection, logger: logger).isEmpty
        }
    }
}
