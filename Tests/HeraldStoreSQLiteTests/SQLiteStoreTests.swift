import Foundation
import GRDB
import HeraldCore
import HeraldStore
@testable import HeraldStoreConformance
@testable import HeraldStoreSQLite
import Synchronization
import Testing

/// What only the SQLite backend has: its file, its id drawing, its query plans.
@Suite("SQLite store")
struct SQLiteStoreTests {
    /// Counts calls and answers from a script, so id collisions can be forced.
    final class ScriptedIDs: Sendable {
        private let state: Mutex<(script: [String], count: Int)>

        init(_ script: [String]) { self.state = Mutex((script, 0)) }

        /// How many ids were drawn so far.
        var draws: Int { state.withLock { $0.count } }

        /// The next scripted id; the last one repeats forever.
        func next() -> SubscriberID {
            state.withLock { state in
                state.count += 1
                return SubscriberID(rawValue: state.script.count > 1 ? state.script.removeFirst() : state.script[0])
            }
        }
    }

    @Test("a colliding id is drawn again, at most 10 times")
    func idCollisions() async throws {
        let ids = ScriptedIDs(["AAAAAAAAAAA", "AAAAAAAAAAA", "AAAAAAAAAAA", "BBBBBBBBBBB", "AAAAAAAAAAA"])
        let store = try SQLiteStore(path: TemporaryDatabases.newPath(), makeID: { ids.next() })
        defer { try? store.close() }

        #expect(try await store.register(apns(1), now: TestTime.t0).subscriber.id.rawValue == "AAAAAAAAAAA")
        #expect(try await store.register(apns(2), now: TestTime.t0).subscriber.id.rawValue == "BBBBBBBBBBB")
        #expect(ids.draws == 4)

        // Only "AAAAAAAAAAA" is left in the script: every draw collides.
        await #expect(throws: StoreError.idExhausted) {
            try await store.register(apns(3), now: TestTime.t0)
        }
        #expect(ids.draws == 14)
        #expect(try await store.counts().subscribers == 2)
        // Re-registering an existing subscriber draws nothing.
        #expect(try await store.register(apns(1), now: TestTime.t0 + 1).created == false)
        #expect(ids.draws == 14)
    }

    /// A new database file with the schema only up to `migration`, and the rows `fill` writes.
    static func database(migratedUpTo migration: String, fill: @escaping @Sendable (Database) throws -> Void) async throws -> String {
        let path = TemporaryDatabases.newPath()
        let pool = try DatabasePool(path: path)
        try SQLiteSchema.migrator.migrate(pool, upTo: migration)
        try await pool.write(fill)
        try pool.close()
        return path
    }

    @Test("migration v5 counts the subscribers of a database made before it")
    func subscriberCountsMigration() async throws {
        let path = try await Self.database(migratedUpTo: "v4-failing-subscribers") { db in
            for n in 0..<3 {
                try db.execute(
                    sql: "INSERT INTO subscribers (id, proto, token, identity, created, updated) VALUES (?, 'apns', ?, ?, 0, 0)",
                    arguments: ["s\(n)", "t\(n)", "t\(n)"])
                try db.execute(sql: "INSERT INTO subscriptions (event, subscriber_id, ignore_message) VALUES ('news', ?, 0)", arguments: ["s\(n)"])
            }
            try db.execute(sql: "INSERT INTO events (name, created) VALUES ('news', 0), ('broadcast', 0)")
        }
        let store = try SQLiteStore(path: path)
        defer { try? store.close() }
        #expect(try await store.statistics(of: event("news"))?.subscribers == 3)
        #expect(try await store.statistics(of: .broadcast)?.subscribers == 3)
        #expect(try await store.deleteSubscriber(SubscriberID(rawValue: "s0")))
        #expect(try await store.statistics(of: event("news"))?.subscribers == 2)
        #expect(try await store.statistics(of: .broadcast)?.subscribers == 2)
    }

    @Test("migration v6 moves the badges of a database made before it into their own table")
    func badgesMigration() async throws {
        let path = try await Self.database(migratedUpTo: "v5-subscriber-counts") { db in
            for (n, badge) in [(0, "3"), (1, nil), (2, "x7")] as [(Int, String?)] {
                try db.execute(
                    sql: "INSERT INTO subscribers (id, proto, token, identity, badge, created, updated) VALUES (?, 'apns', ?, ?, ?, 0, 0)",
                    arguments: ["s\(n)", "t\(n)", "t\(n)", badge])
            }
        }
        let store = try SQLiteStore(path: path)
        defer { try? store.close() }
        let ids = (0..<3).map { SubscriberID(rawValue: "s\($0)") }
        #expect(try await store.subscriber(ids[0])?.fields.badge == "3")
        #expect(try await store.subscriber(ids[1])?.fields.badge == nil)
        #expect(try await store.subscriber(ids[2])?.fields.badge == "x7")
        let before = try await store.incrementBadges(expecting: [
            BadgeExpectation(id: ids[0], storedBadge: "3"), BadgeExpectation(id: ids[1], storedBadge: nil),
        ])
        #expect(before == [.incremented(from: "3"), .incremented(from: nil)])
        #expect(try await store.subscriber(ids[0])?.fields.badge == "4")
        #expect(try await store.subscriber(ids[1])?.fields.badge == "1")
        // Subscribers made after it get their row with their first badge; deleted ones lose it.
        let added = try await store.register(apns(9), now: TestTime.t0).subscriber.id
        let badgeRows = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM badges") }
        #expect(badgeRows == 3, "a registration without a badge writes no badges row (v12)")
        #expect(try await store.incrementBadges(expecting: [BadgeExpectation(id: added, storedBadge: nil)]) == [.incremented(from: nil)])
        #expect(try await store.deleteSubscriber(ids[2]))
        let rows = try await store.pool.read { db in try String.fetchAll(db, sql: "SELECT subscriber_id FROM badges ORDER BY 1") }
        #expect(rows == [added.rawValue, "s0", "s1"].sorted())
        let columns = try await store.pool.read { db in try db.columns(in: "subscribers").map(\.name) }
        #expect(!columns.contains("badge"))
    }

    @Test("migration v8 keeps the retries, feedback, dead letters and jobs of a database made before it, as pushd's")
    func rawSendsMigration() async throws {
        let notification = try SQLiteCodec.encode(sampleNotification())
        let path = try await Self.database(migratedUpTo: "v7-pending-deliveries") { db in
            try db.execute(sql: "INSERT INTO subscribers (id, proto, token, identity, created, updated) VALUES ('s0', 'apns', 't0', 't0', 0, 0)")
            try db.execute(
                sql: """
                    INSERT INTO retries (subscriber_id, notification, silent, badge, attempts, due_at, published_at, last_reason)
                    VALUES ('s0', ?, 1, 4, 2, 1000, 5, 'InternalServerError')
                    """,
                arguments: [notification])
            try db.execute(sql: """
                INSERT INTO feedback (time, subscriber_id, proto, token, status, reason, action) VALUES (7, 's0', 'apns', 't0', 410, 'Unregistered', 'kept');
                INSERT INTO feedback (time, subscriber_id, proto, token, status, reason, action) VALUES (7, 's0', 'apns', 't0', 410, 'Unregistered', 'kept');
                DELETE FROM feedback WHERE id = 2;
                """)
            try db.execute(
                sql: """
                    INSERT INTO dead_letters (time, subscriber_id, proto, token, event, notification, silent, attempts, published_at, reason)
                    VALUES (8, 's0', 'apns', 't0', 'sport', ?, 0, 3, 5, 'BadTopic')
                    """,
                arguments: [notification])
            try db.execute(
                sql: "INSERT INTO publish_jobs (audience_kind, audience_value, notification, published_at) VALUES ('broadcast', NULL, ?, 5)",
                arguments: [notification])
        }
        let store = try SQLiteStore(path: path)
        defer { try? store.close() }
        let retry = try #require(try await store.claimDueRetries(limit: 5, lease: Lease(owner: "a", expiresAt: 9_000), nowMillis: 2_000).first)
        #expect(retry.recipient == .subscriber(SubscriberID(rawValue: "s0")))
        #expect(retry.origin == .pushd)
        #expect(retry.notification == .event(sampleNotification()))
        #expect(retry.attempts == 2)
        let feedback = try await store.feedback(matching: FeedbackFilter(origin: .pushd), after: nil, since: nil, limit: 5)
        #expect(feedback.map(\.action) == [.kept])
        #expect(feedback.first?.subscriberID == SubscriberID(rawValue: "s0"))
        let letters = try await store.deadLetters(matching: DeadLetterFilter(origin: .pushd), after: nil, limit: 5)
        #expect(letters.map(\.reason) == ["BadTopic"])
        #expect(letters.first?.content.notification == .event(sampleNotification()))
        let job = try #require(try await store.claimJobs(limit: 5, lease: Lease(owner: "a", expiresAt: 9_000), nowMillis: 2_000).first)
        #expect(job.origin == .pushd)
        // Ids go on from where they were, deleted rows included: a reader's cursor never sees one twice.
        try await store.appendFeedback([
            FeedbackEntry(time: 9, subscriberID: nil, proto: "apns", token: "t9", status: nil, reason: "x", action: .failed)
        ])
        #expect(try await store.feedback(after: 1, since: nil, limit: 5).map(\.id) == [3])
        // The cascade from subscribers still reaches the rebuilt retries table.
        #expect(try await store.deleteSubscriber(SubscriberID(rawValue: "s0")))
        #expect(try await store.backlog().retries == 0)
    }

    @Test("data survives closing and reopening; the migration runs once")
    func reopen() async throws {
        let path = TemporaryDatabases.newPath()
        let first = try SQLiteStore(path: path)
        let id = try await first.register(apns(1, fields: SubscriberFields(lang: "fr")), now: TestTime.t0).subscriber.id
        _ = try await first.subscribe(id, to: event("sport"), ignoreMessage: true, now: TestTime.t0)
        _ = try await first.enqueue(.subscribers(event("sport")), notification: sampleNotification(), now: TestTime.t0)
        try first.close()

        let second = try SQLiteStore(path: path)
        defer { try? second.close() }
        #expect(try await second.subscriber(id)?.fields.lang == "fr")
        #expect(try await second.subscription(of: id, to: event("sport")) == true)
        let jobs = try await second.claimJobs(limit: 10, lease: Lease(owner: "w", expiresAt: 1), nowMillis: 0)
        #expect(jobs.map(\.content) == [.event(sampleNotification())])
        let migrations = try await second.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(migrations == ["v1", "v2-dead-letters", "v3-feedback-replacement", "v4-failing-subscribers", "v5-subscriber-counts", "v6-badges", "v7-pending-deliveries", "v8-raw-sends-and-origins", "v9-shared-fan-out", "v10-front-end-leases", "v11-publish-receipts", "v12-badges-on-demand", "v13-dead-tokens", "v14-delivery-keys", "v15-api-tokens", "v16-unifiedpush"])
        let journal = try await second.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    @Test("two stores on one file (two processes) never claim the same job")
    func twoWritersShareTheQueue() async throws {
        let path = TemporaryDatabases.newPath()
        let a = try SQLiteStore(path: path)
        let b = try SQLiteStore(path: path)
        defer {
            try? a.close()
            try? b.close()
        }
        _ = try await a.register(apns(1), now: TestTime.t0)
        for _ in 0..<200 {
            _ = try await a.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
        }
        let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for (owner, store) in [("a", a), ("b", b)] {
                group.addTask {
                    var mine: [Int64] = []
                    while true {
                        let jobs = try await store.claimJobs(limit: 3, lease: Lease(owner: owner, expiresAt: 1_000_000), nowMillis: 0)
                        if jobs.isEmpty { return mine }
                        mine += jobs.map(\.id)
                    }
                }
            }
            return try await group.reduce(into: [Int64]()) { $0 += $1 }
        }
        #expect(claimed.count == 200)
        #expect(Set(claimed).count == 200)
    }

    @Test("closing folds the write-ahead log into the database file and empties it")
    func closeCheckpoints() async throws {
        let path = TemporaryDatabases.newPath()
        let store = try SQLiteStore(path: path)
        _ = try await store.registerMany((0..<100).map { apns($0) }, subscribingTo: nil, now: TestTime.t0)
        try store.close()
        // A copy of the file without its log holds only what was checkpointed.
        let copy = TemporaryDatabases.newPath()
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let queue = try DatabaseQueue(path: copy)
        defer { try? queue.close() }
        let inFile = try await queue.read { db in
            try db.tableExists("subscribers") ? Int.fetchOne(db, sql: "SELECT count(*) FROM subscribers") : nil
        }
        #expect(inFile == 100)
        let log = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
        #expect((log ?? 0) == 0)
    }

    @Test("the log is copied into the database file while the store writes, by a connection of its own")
    func backgroundCheckpoint() async throws {
        let path = TemporaryDatabases.newPath()
        // The writer never checkpoints: only the background connection can have copied the log.
        let checkpointer = SQLiteCheckpointer(backgroundFrames: 40, writerFrames: .max)
        let store = try SQLiteStore(path: path, makeID: SubscriberID.random, checkpointer: checkpointer)
        defer { try? store.close() }
        let before = Self.fileSize(path)
        for number in 0..<200 {
            _ = try await store.register(apns(number), now: TestTime.t0)
        }
        // Each commit's hook queued its checkpoint before the registration returned.
        checkpointer.waitForStartedCheckpoints()
        #expect(Self.fileSize(path) > before)
    }

    @Test("a log written without pause is rewound: the writer checkpoints itself past its limit")
    func writerCheckpointBoundsTheLog() async throws {
        let path = TemporaryDatabases.newPath()
        let checkpointer = SQLiteCheckpointer(backgroundFrames: 40, writerFrames: 200)
        let store = try SQLiteStore(path: path, makeID: SubscriberID.random, checkpointer: checkpointer)
        defer { try? store.close() }
        // Each registration commits alone: a few pages each, well over ten times the writer's limit.
        for number in 0..<1_500 {
            _ = try await store.register(apns(number), now: TestTime.t0)
        }
        let pages = Self.fileSize(path + "-wal") / (4_096 + 24)
        #expect(pages < 1_000)
        #expect(try await store.counts().subscribers == 1_500)
    }

    /// The size of the file at `path`, 0 when there is none.
    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test("an unreadable row is reported as corrupt, not skipped")
    func corruptRows() async throws {
        let store = try SQLiteStore(path: TemporaryDatabases.newPath())
        defer { try? store.close() }
        try await store.pool.write { db in
            try db.execute(sql: "INSERT INTO publish_jobs (audience_kind, notification, published_at) VALUES ('martians', x'7b7d', 0)")
        }
        await #expect(throws: StoreError.corruptRow) {
            try await store.claimJobs(limit: 1, lease: Lease(owner: "w", expiresAt: 1), nowMillis: 0)
        }
        #expect(StoreError.corruptRow("a") == StoreError.corruptRow("b"))
        #expect(StoreError.corruptRow != StoreError.idExhausted)
        #expect(String(describing: StoreError.corruptRow("publish_jobs 1")).contains("publish_jobs 1"))
    }

    @Test("version numbers are compared numerically")
    func versionNumbers() {
        #expect(SQLiteStore.versionNumber("3.40.1") == 3_040_001)
        #expect(SQLiteStore.versionNumber("3.37") == 3_037_000)
        #expect(SQLiteStore.versionNumber("3.9.2") < SQLiteStore.minimumSQLiteVersion)
    }

    /// The hot-path statements, with the table each must reach by key rather than by scan.
    static let hotQueries: [(name: String, sql: String)] = [
        ("event audience page", """
            SELECT \(SQLiteCodec.subscriberColumns("s")), sub.ignore_message
            FROM subscriptions AS sub CROSS JOIN subscribers AS s ON s.id = sub.subscriber_id
            WHERE sub.event = 'e' AND sub.subscriber_id > 'a' ORDER BY sub.subscriber_id LIMIT 500
            """),
        ("broadcast page", "SELECT \(SQLiteCodec.subscriberColumns("s")) FROM subscribers AS s WHERE s.id > 'a' ORDER BY s.id LIMIT 500"),
        ("badge read", """
            SELECT s.id, b.badge FROM subscribers AS s LEFT JOIN badges AS b ON b.subscriber_id = s.id
            WHERE s.id IN (SELECT value FROM json_each('[]'))
            """),
        ("badge write", """
            INSERT INTO badges (subscriber_id, badge)
            SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each('[]') WHERE true
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
            """),
        ("badge increment", "UPDATE badges SET badge = '2' WHERE subscriber_id = 'a' AND badge IS '1'"),
        ("first badge", """
            INSERT INTO badges (subscriber_id, badge) SELECT 'a', '1' WHERE EXISTS (SELECT 1 FROM subscribers WHERE id = 'a')
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge WHERE badges.badge IS NULL
            """),
        ("audience exists", "SELECT EXISTS (SELECT 1 FROM subscriptions WHERE event = 'e')"),
        ("subscriber's events", "SELECT DISTINCT event FROM subscriptions WHERE subscriber_id IN (SELECT value FROM json_each('[]'))"),
        ("event names", """
            SELECT name FROM events WHERE name < 'unicast:' AND name <> 'broadcast'
            UNION SELECT name FROM events WHERE name >= 'unicast;'
            UNION SELECT event FROM subscriptions WHERE event = 'broadcast'
            UNION SELECT event FROM subscriptions WHERE event >= 'unicast:' AND event < 'unicast;'
            ORDER BY 1
            """),
        ("due retries", "SELECT id FROM retries WHERE due_at <= 5 AND (lease_expires IS NULL OR lease_expires < 5) ORDER BY due_at, id LIMIT 10"),
        ("feedback since", "SELECT min(id) FROM feedback INDEXED BY feedback_by_time WHERE time >= 5"),
        ("any failing subscriber", "SELECT EXISTS (SELECT 1 FROM subscribers INDEXED BY subscribers_failing WHERE failures <> 0)"),
        ("reset failure counters", """
            UPDATE subscribers INDEXED BY subscribers_failing SET failures = 0
            WHERE failures <> 0 AND id IN (SELECT value FROM json_each('[]'))
            """),
    ]

    @Test("hot-path statements use keys, never a full scan of a big table", arguments: hotQueries.map(\.name))
    func queryPlans(_ name: String) async throws {
        let sql = try #require(Self.hotQueries.first { $0.name == name }?.sql)
        let store = try SQLiteStore(path: TemporaryDatabases.newPath())
        defer { try? store.close() }
        let plan = try await store.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
        }
        #expect(!plan.isEmpty)
        // The partial index of failing subscribers is small by design, and EXISTS stops at its first entry.
        let scans = plan.filter {
            $0.hasPrefix("SCAN ") && !$0.hasPrefix("SCAN json_each") && !$0.hasPrefix("SCAN CONSTANT")
                && $0 != "SCAN subscribers USING INDEX subscribers_failing"
        }
        #expect(scans.isEmpty, "\(name): \(plan)")
    }
}
