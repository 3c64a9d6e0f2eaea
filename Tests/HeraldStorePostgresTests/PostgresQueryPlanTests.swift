import HeraldCore
@testable import HeraldStoreConformance
@testable import HeraldStorePostgres
import Logging
import PostgresNIO
import Testing

/// The fan-out's per-page statements, planned by PostgreSQL on a table with statistics: each must
/// reach the subscribers and badges of a page through their keys, never by a scan of the table,
/// whose cost would grow with every subscriber registered.
@Suite("PostgreSQL: query plans")
struct PostgresQueryPlanTests {
    @Test("an audience page and its badge increments read subscribers and badges by key, after ANALYZE")
    func pagesUseKeys() async throws {
        let store = try await PostgresTestStores.open()
        do {
            // 100,000 subscribers written in SQL (registering them one by one would take a minute):
            // at this size the default costs made the planner scan whole tables.
            _ = try await store.register(apns(0), now: TestTime.t0)
            let logger = Logger(label: "herald.test.plan")
            let (audience, badges) = try await store.withConnection { connection in
                try await connection.query("""
                    INSERT INTO subscribers (id, proto, token, identity, created, updated)
                    SELECT substr(md5(i::text), 1, 11), 'apns', md5(i::text), md5(i::text), 0, 0 FROM generate_series(1, 100000) AS i
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
                try await connection.query("INSERT INTO badges (subscriber_id) SELECT id FROM subscribers ON CONFLICT DO NOTHING", logger: logger)
                try await connection.query(
                    "INSERT INTO subscriptions (event, subscriber_id, ignore_message) SELECT 'plan', id, false FROM subscribers", logger: logger)
                try await connection.query("ANALYZE", logger: logger)
                let page = try await connection.query("SELECT id FROM subscribers ORDER BY id LIMIT 1000 OFFSET 5000", logger: logger)
                    .collect().map { try $0.decode(String.self) }
                let literal = "ARRAY[" + page.map { "'\($0)'" }.joined(separator: ",") + "]::text[]"
                let audience = try await Self.plan(
                    """
                    SELECT s.id, b.badge, sub.ignore_message
                    FROM (
                        SELECT subscriber_id, ignore_message FROM subscriptions
                        WHERE event = 'plan' AND subscriber_id > '' ORDER BY subscriber_id LIMIT 1000
                    ) AS sub
                    JOIN LATERAL (SELECT * FROM subscribers WHERE subscribers.id = sub.subscriber_id OFFSET 0) AS s ON true
                    LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id OFFSET 0) AS b ON true
                    ORDER BY sub.subscriber_id
                    """, on: connection, logger: logger)
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("SET LOCAL random_page_cost = 1.1", logger: logger)
                let badges = try await Self.plan(
                    """
                    UPDATE badges AS b SET badge = e.new
                    FROM unnest(\(literal), \(literal), array_fill(true, ARRAY[1000]), \(literal)) AS e(id, expected, expected_null, new)
                    WHERE b.subscriber_id = ANY(\(literal)) AND b.subscriber_id = e.id
                      AND CASE WHEN e.expected_null THEN b.badge IS NULL ELSE b.badge = e.expected END
                    RETURNING b.subscriber_id
                    """, on: connection, logger: logger)
                try await connection.query("ROLLBACK", logger: logger)
                return (audience, badges)
            }
            #expect(!audience.isEmpty && !badges.isEmpty)
            #expect(!audience.contains { $0.contains("Seq Scan on subscribers") || $0.contains("Seq Scan on badges") }, "\(audience)")
            #expect(!badges.contains { $0.contains("Seq Scan on badges") }, "\(badges)")
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// The lines of `EXPLAIN` for `sql`, a statement with its values written in.
    private static func plan(_ sql: String, on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + sql), logger: logger).collect().map { try $0.decode(String.self) }
    }
}
