import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Refreshes the subscriber with the registration's `(proto, identity)`, else inserts a new
    /// one. Concurrent registrations on this node are committed together (``registrationCommit``):
    /// one statement for the batch (``RegistrationBatchStatement``), one round trip and one commit,
    /// each caller answered once its own row is committed.
    public func register(_ registration: SubscriberRegistration, now: Int64) async throws -> (subscriber: Subscriber, created: Bool) {
        try await registrationCommit.submit(RegistrationStatement(registration: registration, id: makeID(), now: now)) { batch in
            await self.commitRegistrations(batch)
        }
    }

    /// Commits a batch of registrations gathered by ``registrationCommit``: in one statement, then
    /// alone those it could not take (a second registration of one `(proto, identity)`). When the
    /// server refuses the batch's statement nothing of it was written, and each runs alone, so that
    /// only a registration at fault fails; when the connection fails, the batch fails.
    func commitRegistrations(_ batch: [RegistrationStatement]) async -> [Result<(subscriber: Subscriber, created: Bool), any Error>] {
        guard batch.count > 1 else {
            do { return try await register(batch, alone: [0]) } catch { return [.failure(error)] }
        }
        // One registration per identity in the statement, and drawn ids distinct within it, so
        // that an identity or an id names one registration.
        var identities = Set<IdentityKey>()
        var drawn = Set<SubscriberID>()
        var taken: [Int] = []
        var statement: [RegistrationStatement] = []
        for (index, registration) in batch.enumerated() {
            let key = IdentityKey(proto: registration.registration.proto, identity: registration.registration.identity)
            guard identities.insert(key).inserted else { continue }
            var registration = registration
            while !drawn.insert(registration.id).inserted { registration.id = makeID() }
            taken.append(index)
            statement.append(registration)
        }
        var answers = [Result<(subscriber: Subscriber, created: Bool), any Error>?](repeating: nil, count: batch.count)
        switch await executeBatch(RegistrationBatchStatement(registrations: statement)) {
        case .committed(let rows):
            for (ord, created, columns) in rows {
                let position = Int(ord) - 1
                answers[taken[position]] = .success(Self.registered(statement[position], created: created, columns: columns))
            }
        case .refused:
            break
        case .failed(let error):
            return Array(repeating: .failure(error), count: batch.count)
        }
        let unsettled = answers.indices.filter { answers[$0] == nil }
        if !unsettled.isEmpty {
            do {
                for (index, answer) in zip(unsettled, try await register(batch, alone: unsettled)) { answers[index] = answer }
            } catch {
                for index in unsettled { answers[index] = .failure(error) }
            }
        }
        return answers.map { $0! }
    }

    /// A subscriber's `(proto, identity)`, unique among subscribers.
    private struct IdentityKey: Hashable {
        let proto: String
        let identity: String
    }

    /// Runs the registrations of `batch` at `indices` one statement each, on one connection, and
    /// answers each with its own outcome (a refused one fails alone).
    private func register(
        _ batch: [RegistrationStatement], alone indices: [Int]
    ) async throws -> [Result<(subscriber: Subscriber, created: Bool), any Error>] {
        let makeID = self.makeID
        let logger = self.logger
        return try await withConnection { connection in
            var answers: [Result<(subscriber: Subscriber, created: Bool), any Error>] = []
            for index in indices {
                let statement = batch[index]
                do {
                    answers.append(.success(try await Self.register(
                        statement.registration, now: statement.now, makeID: makeID, on: connection, logger: logger)))
                } catch let error as PSQLError where error.code == .server {
                    answers.append(.failure(Self.storeError(error)))
                }
            }
            return answers
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
        for _ in 0..<idDraws {
            let statement = RegistrationStatement(registration: registration, id: makeID(), now: now)
            var answer: RegistrationStatement.Row?
            for try await row in try await connection.execute(statement, logger: logger) {
                answer = row
            }
            guard let (created, columns) = answer else { continue }
            return registered(statement, created: created, columns: columns)
        }
        throw StoreError.idExhausted
    }

    /// The answer to `statement` from its row: a new subscriber is what the registration says; a
    /// refreshed one is its stored row, with the badge the registration gave (the row's badge was
    /// read before the statement: all its parts see one snapshot).
    static func registered(
        _ statement: RegistrationStatement, created: Bool, columns: PostgresCodec.SubscriberTuple
    ) -> (subscriber: Subscriber, created: Bool) {
        let registration = statement.registration
        let fields = registration.fields
        if created {
            return (Subscriber(
                id: statement.id, proto: registration.proto, token: registration.token, fields: fields,
                created: statement.now, updated: statement.now), true)
        }
        var subscriber = PostgresCodec.subscriber(columns)
        if let badge = fields.badge { subscriber.fields.badge = badge }
        return (subscriber, false)
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
