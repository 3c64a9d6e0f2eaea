import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Ordinary events come from their rows (one per event, however many subscribers);
    /// special names are listed only for explicit subscriptions to them, not for their statistics.
    ///
    /// The ranges skip the `unicast:` block, which may hold a statistics row per subscriber.
    public func eventNames() async throws -> [EventName] {
        try await pool.read { db in
            let names = try String.fetchAll(
                db.cachedStatement(sql: """
                    SELECT name FROM events WHERE name < 'unicast:' AND name <> 'broadcast'
                    UNION
                    SELECT name FROM events WHERE name >= 'unicast;'
                    UNION
                    SELECT event FROM subscriptions WHERE event = 'broadcast'
                    UNION
                    SELECT event FROM subscriptions WHERE event >= 'unicast:' AND event < 'unicast;'
                    ORDER BY 1
                    """)
            )
            return try names.map { try SQLiteCodec.eventName($0, table: "events") }
        }
    }

    /// Reads the row and counts the audience it describes (§14): subscriptions, registered
    /// subscribers for `broadcast`, 1 for `unicast:<id>`.
    public func statistics(of event: EventName) async throws -> EventStatistics? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT created, last, total, delivered, failed, subscribers FROM events WHERE name = ?"),
                arguments: [event.rawValue]
            ) else { return nil }
            // Counts kept by triggers (migration v5): reading one never scans the audience.
            let subscribers: Int64
            switch event.audience {
            case .subscribers:
                subscribers = row[5]
            case .broadcast:
                subscribers = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM totals WHERE name = 'subscribers'")) ?? 0
            case .unicast:
                subscribers = 1
            }
            return EventStatistics(
                created: row[0],
                last: row[1],
                total: row[2],
                subscribers: subscribers,
                delivered: row[3],
                failed: row[4]
            )
        }
    }

    /// Deletes the subscriptions to the name and its row; for special names that row is
    /// only statistics and no subscriber is affected (§4.16).
    public func deleteEvent(_ event: EventName) async throws -> Bool {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM subscriptions WHERE event = ?").execute(arguments: [event.rawValue])
            let subscriptions = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM events WHERE name = ?").execute(arguments: [event.rawValue])
            let rows = db.changesCount
            return subscriptions + rows > 0
        }
    }
}
