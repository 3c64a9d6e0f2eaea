import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Reads the subscriber's subscriptions from the `(subscriber_id, event)` index, in byte order.
    public func subscriptions(of id: SubscriberID) async throws -> [(event: EventName, ignoreMessage: Bool)]? {
        let logger = self.logger
        let rows: [(String, Bool)]? = try await withConnection { connection in
            // One statement: the subscriber row decides between "none" and "no subscriber".
            let rows = try await connection.query("""
                SELECT sub.event, sub.ignore_message FROM subscribers AS s
                LEFT JOIN subscriptions AS sub ON sub.subscriber_id = s.id
                WHERE s.id = \(id.rawValue)
                ORDER BY sub.event
                """, logger: logger).map { try $0.decode((String?, Bool?).self) }
            guard !rows.isEmpty else { return nil }
            return rows.compactMap { row in row.0.map { ($0, row.1 ?? false) } }
        }
        return try rows?.map { (event: try PostgresCodec.eventName($0.0, table: "subscriptions"), ignoreMessage: $0.1) }
    }

    /// Reads one subscription; the foreign key guarantees its subscriber exists.
    public func subscription(of id: SubscriberID, to event: EventName) async throws -> Bool? {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                SELECT ignore_message FROM subscriptions WHERE event = \(event.rawValue) AND subscriber_id = \(id.rawValue)
                """, logger: logger).map { try $0.decode(Bool.self) }.first
        }
    }

    /// Subscribes, so that an unknown subscriber leaves no event behind (§4.10). Concurrent
    /// subscriptions on this node are committed together (``subscribeCommit``): one statement for
    /// the batch (``SubscribeBatchStatement``), one round trip and one commit, each caller
    /// answered once its own row is committed.
    public func subscribe(_ id: SubscriberID, to event: EventName, ignoreMessage: Bool, now: Int64) async throws -> SubscribeResult {
        let subscription = SubscribeBatchStatement.Subscription(
            subscriberID: id.rawValue, event: event.rawValue, ignoreMessage: ignoreMessage, now: now,
            createsEvent: !PostgresCodec.isSpecial(event.rawValue))
        return try await subscribeCommit.submit(subscription) { batch in await self.commitSubscriptions(batch) }
    }

    /// Commits a batch of subscriptions gathered by ``subscribeCommit``: in one statement, then
    /// alone a second one of the same `(subscriber, event)`. When the server refuses the batch's
    /// statement (as for an unknown subscriber) nothing of it was written, and each runs alone;
    /// when the connection fails, the batch fails.
    func commitSubscriptions(_ batch: [SubscribeBatchStatement.Subscription]) async -> [Result<SubscribeResult, any Error>] {
        var answers = [Result<SubscribeResult, any Error>?](repeating: nil, count: batch.count)
        if batch.count > 1 {
            var seen = Set<[String]>()
            var taken: [Int] = []
            for (index, subscription) in batch.enumerated() where seen.insert([subscription.subscriberID, subscription.event]).inserted {
                taken.append(index)
            }
            switch await executeBatch(SubscribeBatchStatement(subscriptions: taken.map { batch[$0] })) {
            case .committed(let rows):
                for (ord, inserted) in rows { answers[taken[Int(ord) - 1]] = .success(inserted ? .created : .updated) }
            case .refused:
                break
            case .failed(let error):
                return Array(repeating: .failure(error), count: batch.count)
            }
        }
        for index in answers.indices where answers[index] == nil {
            do {
                answers[index] = .success(try await subscribeAlone(batch[index]))
            } catch {
                answers[index] = .failure(error)
            }
        }
        return answers.map { $0! }
    }

    /// One subscription in a transaction of its own: the subscriber checked (and kept from being
    /// deleted until the commit), the subscription upserted, a new one's event created.
    private func subscribeAlone(_ subscription: SubscribeBatchStatement.Subscription) async throws -> SubscribeResult {
        let logger = self.logger
        return try await withTransaction { connection in
            guard try await Self.subscriberExists(subscription.subscriberID, lock: true, on: connection, logger: logger) else {
                return .unknownSubscriber
            }
            // `xmax = 0` tells an inserted row from an updated one.
            let inserted = try await connection.query("""
                INSERT INTO subscriptions (event, subscriber_id, ignore_message)
                VALUES (\(subscription.event), \(subscription.subscriberID), \(subscription.ignoreMessage))
                ON CONFLICT (event, subscriber_id) DO UPDATE SET ignore_message = excluded.ignore_message
                RETURNING (xmax = 0)
                """, logger: logger).map { try $0.decode(Bool.self) }.first ?? false
            guard inserted else { return .updated }
            try await Self.createEventRow(subscription.event, now: subscription.now, on: connection, logger: logger)
            return .created
        }
    }

    /// Unsubscribes and deletes the event at once if it was the last subscription (§4.11).
    public func unsubscribe(_ id: SubscriberID, from event: EventName) async throws -> Bool {
        let logger = self.logger
        return try await withTransaction { connection in
            guard try await Self.subscriberExists(id.rawValue, on: connection, logger: logger) else { return false }
            let deleted = try await connection.query("""
                DELETE FROM subscriptions WHERE event = \(event.rawValue) AND subscriber_id = \(id.rawValue) RETURNING 1
                """, logger: logger).collect()
            if !deleted.isEmpty {
                try await Self.deleteEventIfEmpty(event.rawValue, on: connection, logger: logger)
            }
            return true
        }
    }

    /// Makes the set equal in one transaction: a delete of what is not wanted, an upsert of what
    /// is (arrays bound to `unnest`), and the events emptied or created. When a name is listed
    /// twice the last option wins, as in a JSON object.
    public func replaceSubscriptions(of id: SubscriberID, with subscriptions: [(event: EventName, ignoreMessage: Bool)], now: Int64) async throws -> Bool {
        var wanted: [String: Bool] = [:]
        for subscription in subscriptions {
            wanted[subscription.event.rawValue] = subscription.ignoreMessage
        }
        let sorted = wanted.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let events = sorted.map(\.key)
        let options = sorted.map(\.value)
        let logger = self.logger
        return try await withTransaction { connection in
            guard try await Self.subscriberExists(id.rawValue, lock: true, on: connection, logger: logger) else { return false }
            let removed = try await connection.query("""
                DELETE FROM subscriptions WHERE subscriber_id = \(id.rawValue) AND NOT (event = ANY(\(events)::text[]))
                RETURNING event
                """, logger: logger).map { try $0.decode(String.self) }
            if !events.isEmpty {
                try await connection.query("""
                    INSERT INTO subscriptions (event, subscriber_id, ignore_message)
                    SELECT w.event, \(id.rawValue), w.ignore_message FROM unnest(\(events)::text[], \(options)::bool[]) AS w(event, ignore_message)
                    ON CONFLICT (event, subscriber_id) DO UPDATE SET ignore_message = excluded.ignore_message
                    WHERE subscriptions.ignore_message IS DISTINCT FROM excluded.ignore_message
                    """, logger: logger)
                let ordinary = events.filter { !PostgresCodec.isSpecial($0) }
                try await connection.query("""
                    INSERT INTO events (name, created) SELECT name, \(now) FROM unnest(\(ordinary)::text[]) AS name
                    ON CONFLICT (name) DO NOTHING
                    """, logger: logger)
            }
            let emptied = removed.filter { !PostgresCodec.isSpecial($0) }
            if !emptied.isEmpty {
                try await connection.query("""
                    DELETE FROM events WHERE name = ANY(\(emptied)::text[])
                      AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE subscriptions.event = events.name)
                    """, logger: logger)
            }
            return true
        }
    }
}
