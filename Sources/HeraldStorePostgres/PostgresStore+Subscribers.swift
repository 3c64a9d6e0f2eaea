import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Refreshes the subscriber with the registration's `(proto, identity)`, else inserts a new
    /// one, in one statement (``register(_:now:makeID:on:logger:)``): one round trip and an
    /// implicit transaction, where `BEGIN`, a refresh, an insert and `COMMIT` took four.
    public func register(_ registration: SubscriberRegistration, now: Int64) async throws -> (subscriber: Subscriber, created: Bool) {
        let makeID = self.makeID
        let logger = self.logger
        return try await withConnection { connection in
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

    /// A registration in one statement (``RegistrationStatement``), atomic on its own or inside a
    /// caller's transaction.
    ///
    /// A statement that changed nothing (the drawn id was taken, or another node inserted the same
    /// identity meanwhile) runs again with another id, and then refreshes what the other node inserted.
    static func register(
        _ registration: SubscriberRegistration, now: Int64, makeID: @Sendable () -> SubscriberID, on connection: PostgresConnection, logger: Logger
    ) async throws -> (subscriber: Subscriber, created: Bool) {
        let fields = registration.fields
        for _ in 0..<idDraws {
            let id = makeID()
            var answer: RegistrationStatement.Row?
            for try await row in try await connection.execute(RegistrationStatement(registration: registration, id: id, now: now), logger: logger) {
                answer = row
            }
            guard let (created, columns) = answer else { continue }
            if created {
                return (Subscriber(id: id, proto: registration.proto, token: registration.token, fields: fields, created: now, updated: now), true)
            }
            // The returned badge is the one before the statement (all its parts see one snapshot).
            var subscriber = PostgresCodec.subscriber(columns)
            if let badge = fields.badge { subscriber.fields.badge = badge }
            return (subscriber, false)
        }
        throw StoreError.idExhausted
    }

    /// Stores `badge` as the badge of the subscriber `id`, whose row the caller's transaction
    /// has written (so no deletion can leave this badge behind).
    static func setBadge(_ badge: String, of id: SubscriberID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO badges (subscriber_id, badge) VALUES (\(id.rawValue), \(badge))
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
            """, logger: logger)
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
