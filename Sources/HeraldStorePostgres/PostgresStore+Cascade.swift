import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Deletes subscribers with everything §4.5 says goes with them, inside the caller's
    /// transaction: subscriptions and pending retries (foreign-key cascades), badges (listed in
    /// `badge_leftovers` too, see ``sweepBadgeLeftovers(olderThan:on:logger:)``), every ordinary
    /// event left without subscriptions, their `unicast:<id>` statistics, and the `broadcast`
    /// statistics once no subscriber remains.
    ///
    /// Shared by `DELETE /subscriber/:id` and automatic unregistration so the two never differ.
    /// - Returns: the ids that existed and were deleted.
    static func deleteSubscribers(_ ids: [String], on connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        // The events are read before the cascade removes the links that say which to look at.
        let rows = try await connection.query("""
            WITH gone AS (
                SELECT DISTINCT event FROM subscriptions WHERE subscriber_id = ANY(\(ids)::text[])
            ), deleted AS (
                DELETE FROM subscribers WHERE id = ANY(\(ids)::text[]) RETURNING id
            ), badges_deleted AS (
                DELETE FROM badges WHERE subscriber_id IN (SELECT id FROM deleted)
            ), leftovers AS (
                INSERT INTO badge_leftovers (subscriber_id) SELECT id FROM deleted
            )
            SELECT 'd', id FROM deleted UNION ALL SELECT 'e', event FROM gone
            """, logger: logger).map { try $0.decode((String, String).self) }
        let deleted = rows.filter { $0.0 == "d" }.map(\.1)
        guard !deleted.isEmpty else { return [] }
        // Special names only have explicit subscriptions; their rows are statistics that live by
        // §14.2's rules, not by their subscriptions.
        let ordinary = rows.filter { $0.0 == "e" && !PostgresCodec.isSpecial($0.1) }.map(\.1)
        let unicast = deleted.map { "unicast:" + $0 }
        try await connection.query("""
            DELETE FROM events
            WHERE (name = ANY(\(ordinary)::text[]) AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE subscriptions.event = events.name))
               OR name = ANY(\(unicast)::text[])
               OR (name = 'broadcast' AND NOT EXISTS (SELECT 1 FROM subscribers))
            """, logger: logger)
        return Set(deleted)
    }

    /// Deletes the badges that fan-out pages created for subscribers deleted more than `age` ago,
    /// and those subscribers' entries in `badge_leftovers`.
    ///
    /// A page whose snapshot predates a deletion still sees the subscriber, and creates its badge
    /// row after the deletion deleted none (badges have no foreign key: its check locked every
    /// member's subscriber row). Such a row is harmless, as every read joins badges to
    /// subscribers, but it would stay; once no page that started before the deletion can still
    /// be running, the deleted ids' rows are deleted for good. An id drawn again since (one
    /// chance in 2⁶⁴ per subscriber) keeps its badge.
    /// - Returns: the badge rows deleted.
    @discardableResult
    static func sweepBadgeLeftovers(olderThan age: Duration, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let seconds = Double(age.components.seconds)  // whole seconds are precise enough here
        let rows = try await connection.query("""
            WITH due AS (
                DELETE FROM badge_leftovers WHERE deleted <= now() - make_interval(secs => \(seconds)) RETURNING subscriber_id
            ), swept AS (
                DELETE FROM badges WHERE subscriber_id IN (SELECT subscriber_id FROM due)
                    AND NOT EXISTS (SELECT 1 FROM subscribers WHERE subscribers.id = badges.subscriber_id)
                RETURNING 1
            )
            SELECT count(*) FROM swept
            """, logger: logger).map { try $0.decode(Int64.self) }
        return Int(rows.first ?? 0)
    }

    /// Deletes an ordinary event's row if it has no subscription left (§3.2); special names are left alone.
    static func deleteEventIfEmpty(_ name: String, on connection: PostgresConnection, logger: Logger) async throws {
        guard !PostgresCodec.isSpecial(name) else { return }
        try await connection.query("""
            DELETE FROM events WHERE name = \(name) AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE event = \(name))
            """, logger: logger)
    }

    /// Creates an ordinary event's row on its first subscription (§3.2); special names get theirs on publish.
    static func createEventRow(_ name: String, now: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        guard !PostgresCodec.isSpecial(name) else { return }
        try await connection.query("INSERT INTO events (name, created) VALUES (\(name), \(now)) ON CONFLICT (name) DO NOTHING", logger: logger)
    }

    /// Whether a subscriber with `id` exists; with `lock`, also keeps it from being deleted until the commit.
    static func subscriberExists(_ id: String, lock: Bool = false, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let query: PostgresQuery = lock
            ? "SELECT 1 FROM subscribers WHERE id = \(id) FOR KEY SHARE"
            : "SELECT 1 FROM subscribers WHERE id = \(id)"
        return try await !connection.query(query, logger: logger).collect().isEmpty
    }
}
