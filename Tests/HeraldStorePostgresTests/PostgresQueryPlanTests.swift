import HeraldCore
@testable import HeraldStoreConformance
@testable import HeraldStorePostgres
import Logging
import PostgresNIO
import Testing

/// The fan-out's per-page statements, planned by PostgreSQL on tables with statistics and without:
/// each must reach the subscribers and badges of a page through their keys (a lookup per member,
/// or an index range from the cursor that stops at the page's last member), never by a scan of
/// the table, whose cost would grow with every subscriber registered.
@Suite("PostgreSQL: query plans")
struct PostgresQueryPlanTests {
    @Test("an audience page and its badge increments read subscribers and badges by key, after ANALYZE")
    func pagesUseKeys() async throws {
        // At 100,000 subscribers the default costs made the planner scan whole tables.
        let (audience, badges) = try await Self.withSeededDatabase(autovacuum: true) { connection, logger in
            try await connection.query("ANALYZE", logger: logger)
            let page = try await connection.query("SELECT id FROM subscribers ORDER BY id LIMIT 1000 OFFSET 5000", logger: logger)
                .collect().map { try $0.decode(String.self) }
            let literal = "ARRAY[" + page.map { "'\($0)'" }.joined(separator: ",") + "]::text[]"
            // The store's own statements, prepared and explained with a page's values, under the
            // settings the store runs them with (the page's a generic plan).
            let audience = try await Self.planPrepared(
                PostgresStore.eventAudiencePage(.keyLookups), types: "text, text, bigint", values: "'plan', '', 1000",
                settings: PostgresStore.eventPagePlan(.keyLookups, incrementingBadges: false), on: connection, logger: logger)
            let badges = try await Self.planPrepared(
                PostgresStore.badgeIncrement, types: "text[], text[], bool[], text[]",
                values: "\(literal), \(literal), array_fill(true, ARRAY[1000]), \(literal)", settings: PostgresStore.badgePageCosts,
                on: connection, logger: logger)
            return (audience, badges)
        }
        #expect(!audience.isEmpty && !badges.isEmpty)
        #expect(!audience.contains { $0.contains("Seq Scan on subscribers") || $0.contains("Seq Scan on badges") }, "\(audience)")
        #expect(!badges.contains { $0.contains("Seq Scan on badges") }, "\(badges)")
    }

    @Test("an audience page reads its range of subscriptions in index order, analysed or not")
    func pageWithoutStatistics() async throws {
        let plans = try await Self.withSeededDatabase { connection, logger in
            var plans: [[String]] = []
            try await Self.inEachStatisticsState(on: connection, logger: logger) { state, event in
                // The page as the store reads it: its plan settings first, in its transaction.
                plans.append([state] + (try await Self.planPrepared(
                    PostgresStore.eventAudiencePage(.keyLookups), types: "text, text, bigint", values: "'\(event)', '', 1000",
                    settings: PostgresStore.eventPagePlan(.keyLookups, incrementingBadges: false), on: connection, logger: logger)))
            }
            return plans
        }
        #expect(plans.count == 3)
        for audience in plans {
            #expect(audience.contains { $0.contains("Index Scan using subscriptions_pkey on subscriptions") }, "\(audience)")
            // A bitmap scan reads every subscription after the cursor and sorts them, on every page
            // (so does a sequential scan); a Memoize cache in front of the lookups of a page's
            // distinct subscribers only misses.
            #expect(!audience.contains { $0.contains("Bitmap") || $0.contains("Sort") || $0.contains("Memoize") || $0.contains("Seq Scan") }, "\(audience)")
        }
    }

    @Test("a page that increments its badges writes them by TID and matches them to the page by hash or merge, analysed or not")
    func badgePageJoins() async throws {
        let plans = try await Self.withSeededDatabase { connection, logger in
            let cut = try await connection.query("SELECT id FROM subscribers ORDER BY id LIMIT 1 OFFSET 50000", logger: logger)
                .collect().map { try $0.decode(String.self) }[0]
            var plans: [[String]] = []
            // "Analysed before" made the planner match the page's 1,000 rows with 1,000 in a nested loop.
            try await Self.inEachStatisticsState(on: connection, logger: logger) { state, event in
                for bounded in [true, false] {
                    let plan = try await Self.planPrepared(
                        PostgresStore.eventAudiencePageIncrementingBadges(.keyLookups, bounded: bounded), types: "text, text, bigint, text[], text",
                        values: "'\(event)', '', 1000, ARRAY['apns'], '\(cut)'", settings: PostgresStore.eventPagePlan(.keyLookups, incrementingBadges: true),
                        on: connection, logger: logger)
                    plans.append([state] + plan)
                }
            }
            return plans
        }
        for plan in plans {
            #expect(plan.contains { $0.contains("Index Scan using subscriptions_pkey on subscriptions") }, "\(plan)")
            #expect(plan.contains { $0.contains("Tid Scan on badges") }, "\(plan)")
            #expect(plan.contains { $0.contains("Merge Left Join") || $0.contains("Hash Left Join") || $0.contains("Hash Right Join") }, "\(plan)")
            #expect(!plan.contains { $0.contains("Seq Scan") || $0.contains("Bitmap") || $0.contains("Join Filter") || $0.contains("Memoize") }, "\(plan)")
        }
    }

    @Test("a page merged with the ranges after its cursor reads no further than its last member, analysed or not")
    func rangeMergeStopsAtThePage() async throws {
        let plans = try await Self.withSeededDatabase { connection, logger in
            let ids = try await connection.query(
                "SELECT id FROM subscribers WHERE id IN ((SELECT id FROM subscribers ORDER BY id LIMIT 1 OFFSET 50000), (SELECT max(id) FROM subscribers))",
                logger: logger
            ).collect().map { try $0.decode(String.self) }.sorted()
            let (cursor, end) = (ids[0], ids[1])
            var plans: [(state: String, lines: [String])] = []
            try await Self.inEachStatisticsState(on: connection, logger: logger) { state, event in
                // Executed (and rolled back), so that the rows each scan read are counted.
                plans.append((state, try await Self.planPrepared(
                    PostgresStore.eventAudiencePage(.rangeMerge), types: "text, text, bigint", values: "'\(event)', '\(cursor)', 1000",
                    settings: PostgresStore.eventPagePlan(.rangeMerge, incrementingBadges: false), executing: true, on: connection, logger: logger)))
                for bounded in [false, true] {
                    plans.append((state, try await Self.planPrepared(
                        PostgresStore.eventAudiencePageIncrementingBadges(.rangeMerge, bounded: bounded),
                        types: "text, text, bigint, text[]" + (bounded ? ", text" : ""),
                        values: "'\(event)', '\(cursor)', 1000, ARRAY['apns']" + (bounded ? ", '\(end)'" : ""),
                        settings: PostgresStore.eventPagePlan(.rangeMerge, incrementingBadges: true), executing: true, on: connection, logger: logger)))
                }
            }
            return plans
        }
        #expect(plans.count == 9)
        for (state, plan) in plans {
            #expect(plan.contains { $0.contains("Merge Join") }, "\(state): \(plan)")
            #expect(!plan.contains { $0.contains("Seq Scan") || $0.contains("Bitmap") || $0.contains("Hash") || $0.contains("Nested Loop") }, "\(state): \(plan)")
            // The cursor lies halfway: a scan from the table's start, or on to its end, reads 50,000 rows.
            for table in ["subscribers", "badges"] {
                let scan = plan.first { $0.contains("Index Scan using \(table)_pkey on \(table) ") }
                #expect(scan.flatMap(Self.actualRows).map { $0 <= 1001 } == true, "\(state), \(table): \(plan)")
            }
        }
    }

    @Test("the range of a full page is counted in index order, never past its cap, in each page's transaction")
    func rangeCount() async throws {
        let plans = try await Self.withSeededDatabase { connection, logger in
            var plans: [[String]] = []
            // Counted in the page's transaction, so under its settings (and a generic plan).
            for (join, incrementingBadges) in [(AudiencePageJoin.keyLookups, false), (.keyLookups, true), (.rangeMerge, false)] {
                plans.append(try await Self.planPrepared(
                    PostgresStore.rangeCount, types: "text, text, bigint", values: "'', 'ffff', 1501",
                    settings: PostgresStore.eventPagePlan(join, incrementingBadges: incrementingBadges), executing: true, on: connection, logger: logger))
            }
            return plans
        }
        #expect(plans.count == 3)
        for plan in plans {
            let scan = plan.first { $0.contains("Index Only Scan using subscribers_pkey") || $0.contains("Index Scan using subscribers_pkey") }
            #expect(scan.flatMap(Self.actualRows) == 1501, "\(plan)")
            #expect(!plan.contains { $0.contains("Seq Scan") || $0.contains("Sort") }, "\(plan)")
        }
    }

    /// The rows a plan line's node returned (`actual rows=N` of `EXPLAIN ANALYZE`).
    private static func actualRows(_ line: String) -> Int? {
        guard let range = line.range(of: "actual rows=") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// Runs `body` with the name of the seeded event in each of three states of the statistics:
    /// never analysed; analysed; and analysed before the event's subscriptions were written (as
    /// after an import), whose range is then estimated at a row or so.
    private static func inEachStatisticsState(
        on connection: PostgresConnection, logger: Logger, _ body: (_ state: String, _ event: String) async throws -> Void
    ) async throws {
        try await body("never analysed", "plan")
        try await connection.query("ANALYZE", logger: logger)
        try await body("analysed", "plan")
        try await connection.query("UPDATE subscriptions SET event = 'fresh'", logger: logger)
        try await body("analysed before", "fresh")
    }

    /// Runs `body` on a connection to a new database holding ``seed(on:logger:)``'s subscribers,
    /// on tables the autovacuum daemon leaves alone (no statistics unless `body` analyses them)
    /// unless `autovacuum`.
    private static func withSeededDatabase<R: Sendable>(
        autovacuum: Bool = false, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> R
    ) async throws -> R {
        try await PostgresTestStores.with { store in
            _ = try await store.register(apns(0), now: TestTime.t0)
            let logger = Logger(label: "herald.test.plan")
            return try await store.withConnection { connection in
                if autovacuum {
                    try await seed(on: connection, logger: logger)
                } else {
                    try await seedWithoutStatistics(on: connection, logger: logger)
                }
                return try await body(connection, logger)
            }
        }
    }

    /// 100,000 subscribers of the event `plan`, with their badge rows, written in SQL (registering
    /// them one by one would take a minute).
    private static func seed(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO subscribers (id, proto, token, identity, created, updated)
            SELECT substr(md5(i::text), 1, 11), 'apns', md5(i::text), md5(i::text), 0, 0 FROM generate_series(1, 100000) AS i
            ON CONFLICT DO NOTHING
            """, logger: logger)
        try await connection.query("INSERT INTO badges (subscriber_id) SELECT id FROM subscribers ON CONFLICT DO NOTHING", logger: logger)
        try await connection.query(
            "INSERT INTO subscriptions (event, subscriber_id, ignore_message) SELECT 'plan', id, false FROM subscribers", logger: logger)
    }

    /// ``seed(on:logger:)`` on tables the autovacuum daemon leaves alone while the test runs: rows
    /// written and no statistics gathered yet, as after a bulk registration or an import.
    private static func seedWithoutStatistics(on connection: PostgresConnection, logger: Logger) async throws {
        for table in ["subscribers", "badges", "subscriptions"] {
            try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) SET (autovacuum_enabled = false)"), logger: logger)
        }
        try await seed(on: connection, logger: logger)
    }

    /// The plan of `statement` as the store runs it: in a transaction, after its plan `settings`,
    /// prepared with parameters of `types` and explained for `values` (planned for them, unless the
    /// settings ask for a generic plan, as an event page's do), and run when `executing`, with the
    /// rows each node returned. Rolled back and deallocated after, so the pool's connection goes back
    /// without it.
    private static func planPrepared(
        _ statement: String, types: String, values: String, settings: String? = nil, executing: Bool = false,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        try await connection.query("BEGIN", logger: logger)
        if let settings { try await connection.query(PostgresQuery(unsafeSQL: settings), logger: logger) }
        try await connection.query(PostgresQuery(unsafeSQL: "PREPARE planned (\(types)) AS " + statement), logger: logger)
        let lines = try await plan(
            (executing ? "(ANALYZE, TIMING OFF) " : "") + "EXECUTE planned(\(values))", on: connection, logger: logger)
        try await connection.query("ROLLBACK", logger: logger)
        try await connection.query("DEALLOCATE planned", logger: logger)
        return lines
    }

    /// The lines of `EXPLAIN` for `sql`, a statement with its values written in.
    private static func plan(_ sql: String, on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + sql), logger: logger).collect().map { try $0.decode(String.self) }
    }
}
