import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Ordinary events come from their rows; special names are listed only for explicit
    /// subscriptions to them, not for their statistics.
    ///
    /// The ranges skip the `unicast:` block of `events`, which may hold a statistics row per subscriber.
    public func eventNames() async throws -> [EventName] {
        let logger = self.logger
        let names = try await withConnection { connection in
            try await connection.query("""
                SELECT name FROM events WHERE name < 'unicast:' AND name <> 'broadcast'
                UNION
                SELECT name FROM events WHERE name >= 'unicast;'
                UNION
                SELECT event FROM subscriptions WHERE event = 'broadcast'
                UNION
                SELECT event FROM subscriptions WHERE event >= 'unicast:' AND event < 'unicast;'
                ORDER BY 1
                """, logger: logger).map { try $0.decode(String.self) }
        }
        return try names.map { try PostgresCodec.eventName($0, table: "events") }
    }

    /// Reads the row and counts the audience it describes (§14): subscriptions (an index range),
    /// registered subscribers for `broadcast`, 1 for `unicast:<id>`.
    public func statistics(of event: EventName) async throws -> EventStatistics? {
        let logger = self.logger
        let counted: String = switch event.audience {
        case .subscribers: "(SELECT count(*) FROM subscriptions WHERE subscriptions.event = events.name)"
        case .broadcast: "(SELECT count(*) FROM subscribers)"
        case .unicast: "1::bigint"
        }
        return try await withConnection { connection in
            try await connection.query("""
                SELECT created, last, total, delivered, failed, \(unescaped: counted) FROM events WHERE name = \(event.rawValue)
                """, logger: logger).map { row in
                let (created, last, total, delivered, failed, subscribers) = try row.decode((Int64, Int64?, Int64, Int64, Int64, Int64).self)
                return EventStatistics(created: created, last: last, total: total, subscribers: subscribers, delivered: delivered, failed: failed)
            }.first
        }
    }

    /// Deletes the subscriptions to the name and its row; for special names that row is only
    /// statistics and no subscriber is affected (§4.16).
    public func deleteEvent(_ event: EventName) async throws -> Bool {
        let logger = self.logger
        return try await withConnection { connection in
            let rows = try await connection.query("""
                WITH subscriptions_deleted AS (DELETE FROM subscriptions WHERE event = \(event.rawValue) RETURNING 1),
                     events_deleted AS (DELETE FROM events WHERE name = \(event.rawValue) RETURNING 1)
                SELECT (SELECT count(*) FROM subscriptions_deleted) + (SELECT count(*) FROM events_deleted)
                """, logger: logger).map { try $0.decode(Int64.self) }
            return (rows.first ?? 0) > 0
        }
    }
}
