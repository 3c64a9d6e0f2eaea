import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Deletes subscribers with everything §4.5 says goes with them, inside the caller's
    /// write transaction: subscriptions and pending retries (foreign-key cascades), every
    /// ordinary event left without subscriptions, their `unicast:<id>` statistics, and the
    /// `broadcast` statistics once no subscriber remains.
    ///
    /// Shared by `DELETE /subscriber/:id` and automatic unregistration so that the two can
    /// never differ.
    /// - Returns: the ids that existed and were deleted.
    static func deleteSubscribers(_ ids: some Collection<String>, in db: Database) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let idsJSON = try SQLiteCodec.jsonArray(ids)
        // Read before the cascade removes the links that say which events to look at.
        let events = try String.fetchAll(
            db.cachedStatement(sql: """
                SELECT DISTINCT event FROM subscriptions
                WHERE subscriber_id IN (SELECT value FROM json_each(?))
                """),
            arguments: [idsJSON]
        )
        let deleted = try String.fetchAll(
            db.cachedStatement(sql: "DELETE FROM subscribers WHERE id IN (SELECT value FROM json_each(?)) RETURNING id"),
            arguments: [idsJSON]
        )
        guard !deleted.isEmpty else { return [] }

        // Special names only have explicit subscriptions; their rows are statistics that
        // live by §14.2's rules, not by their subscriptions.
        let ordinary = events.filter { !SQLiteCodec.isSpecial($0) }
        if !ordinary.isEmpty {
            try db.cachedStatement(sql: """
                DELETE FROM events
                WHERE name IN (SELECT value FROM json_each(?))
                  AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE subscriptions.event = events.name)
                """)
                .execute(arguments: [SQLiteCodec.jsonArray(ordinary)])
        }
        try db.cachedStatement(sql: "DELETE FROM events WHERE name IN (SELECT 'unicast:' || value FROM json_each(?))")
            .execute(arguments: [SQLiteCodec.jsonArray(deleted)])
        try db.cachedStatement(sql: "DELETE FROM events WHERE name = 'broadcast' AND NOT EXISTS (SELECT 1 FROM subscribers)")
            .execute()
        return Set(deleted)
    }

    /// Deletes an ordinary event's row if it has no subscription left (§3.2); special names are left alone.
    static func deleteEventIfEmpty(_ name: String, in db: Database) throws {
        guard !SQLiteCodec.isSpecial(name) else { return }
        try db.cachedStatement(sql: """
            DELETE FROM events
            WHERE name = ? AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE event = ?)
            """)
            .execute(arguments: [name, name])
    }

    /// Whether a subscriber with `id` exists.
    static func subscriberExists(_ id: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM subscribers WHERE id = ?)"), arguments: [id]) ?? false
    }
}
