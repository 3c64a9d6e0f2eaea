import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Reads the subscriber's subscriptions from the `(subscriber_id, event)` index, already in byte order.
    public func subscriptions(of id: SubscriberID) async throws -> [(event: EventName, ignoreMessage: Bool)]? {
        try await pool.read { db in
            guard try Self.subscriberExists(id.rawValue, in: db) else { return nil }
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT event, ignore_message FROM subscriptions WHERE subscriber_id = ? ORDER BY event"),
                arguments: [id.rawValue]
            )
            return try rows.map { row in
                (event: try SQLiteCodec.eventName(row[0], table: "subscriptions"), ignoreMessage: row[1] as Bool)
            }
        }
    }

    /// Reads one subscription; the foreign key guarantees its subscriber exists.
    public func subscription(of id: SubscriberID, to event: EventName) async throws -> Bool? {
        try await pool.read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT ignore_message FROM subscriptions WHERE event = ? AND subscriber_id = ?"),
                arguments: [event.rawValue, id.rawValue]
            )
        }
    }

    /// Subscribes in one transaction, so an unknown subscriber leaves no event behind (§4.10).
    public func subscribe(_ id: SubscriberID, to event: EventName, ignoreMessage: Bool, now: Int64) async throws -> SubscribeResult {
        try await pool.write { db in
            guard try Self.subscriberExists(id.rawValue, in: db) else { return .unknownSubscriber }
            try db.cachedStatement(sql: "UPDATE subscriptions SET ignore_message = ? WHERE event = ? AND subscriber_id = ?")
                .execute(arguments: [ignoreMessage, event.rawValue, id.rawValue])
            if db.changesCount > 0 { return .updated }
            try Self.insertSubscription(id.rawValue, to: event.rawValue, ignoreMessage: ignoreMessage, now: now, in: db)
            return .created
        }
    }

    /// Unsubscribes and deletes the event at once if it was the last subscription (§4.11).
    public func unsubscribe(_ id: SubscriberID, from event: EventName) async throws -> Bool {
        try await pool.write { db in
            guard try Self.subscriberExists(id.rawValue, in: db) else { return false }
            try db.cachedStatement(sql: "DELETE FROM subscriptions WHERE event = ? AND subscriber_id = ?")
                .execute(arguments: [event.rawValue, id.rawValue])
            if db.changesCount > 0 {
                try Self.deleteEventIfEmpty(event.rawValue, in: db)
            }
            return true
        }
    }

    /// Applies only the difference between the stored set and the wanted one, in one
    /// transaction. When a name is listed twice the last option wins, as in a JSON object.
    public func replaceSubscriptions(of id: SubscriberID, with subscriptions: [(event: EventName, ignoreMessage: Bool)], now: Int64) async throws -> Bool {
        var wanted: [String: Bool] = [:]
        for subscription in subscriptions {
            wanted[subscription.event.rawValue] = subscription.ignoreMessage
        }
        let target = wanted
        return try await pool.write { db in
            guard try Self.subscriberExists(id.rawValue, in: db) else { return false }
            let current = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT event, ignore_message FROM subscriptions WHERE subscriber_id = ?"),
                arguments: [id.rawValue]
            )
            var stored: [String: Bool] = [:]
            for row in current {
                stored[row[0]] = row[1]
            }
            for event in stored.keys.sorted() where target[event] == nil {
                try db.cachedStatement(sql: "DELETE FROM subscriptions WHERE event = ? AND subscriber_id = ?")
                    .execute(arguments: [event, id.rawValue])
                try Self.deleteEventIfEmpty(event, in: db)
            }
            for (event, ignoreMessage) in target.sorted(by: { $0.key < $1.key }) {
                if let existing = stored[event] {
                    if existing != ignoreMessage {
                        try db.cachedStatement(sql: "UPDATE subscriptions SET ignore_message = ? WHERE event = ? AND subscriber_id = ?")
                            .execute(arguments: [ignoreMessage, event, id.rawValue])
                    }
                } else {
                    try Self.insertSubscription(id.rawValue, to: event, ignoreMessage: ignoreMessage, now: now, in: db)
                }
            }
            return true
        }
    }

    /// Inserts a new subscription and, for an ordinary name, creates its event on the first one (§3.2).
    static func insertSubscription(_ id: String, to event: String, ignoreMessage: Bool, now: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO subscriptions (event, subscriber_id, ignore_message) VALUES (?, ?, ?)")
            .execute(arguments: [event, id, ignoreMessage])
        if !SQLiteCodec.isSpecial(event) {
            try db.cachedStatement(sql: "INSERT INTO events (name, created) VALUES (?, ?) ON CONFLICT (name) DO NOTHING")
                .execute(arguments: [event, now])
        }
    }
}
