import Foundation
import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Checks the audience with `EXISTS` (never counting it), then stores the job, bumps the
    /// statistics and notifies the other nodes, in one transaction (§6.1).
    public func enqueue(_ audience: PublishAudience, content: DeliveryContent, origin: DeliveryOrigin, now: Int64) async throws -> EnqueueResult {
        let encoded = try PostgresCodec.encode(content)
        let logger = self.logger
        let result = try await withTransaction { connection -> EnqueueResult in
            try await self.enqueueJob(audience, content: content, encoded: encoded, origin: origin, now: now, on: connection, logger: logger)
        }
        if case .queued = result { wakeUpHub.yield(.jobs) }
        return result
    }

    /// Enqueues a job inside the caller's transaction: ``enqueue(_:content:origin:now:)``'s work.
    func enqueueJob(
        _ audience: PublishAudience, content: DeliveryContent, encoded: (notification: String?, payload: String?), origin: DeliveryOrigin,
        now: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> EnqueueResult {
        switch audience {
        case .subscribers(let event):
            let exists = try await connection.query(
                "SELECT 1 FROM subscriptions WHERE event = \(event.rawValue) LIMIT 1", logger: logger).collect()
            guard !exists.isEmpty else { return .noAudience }
        case .broadcast:
            guard try await !connection.query("SELECT 1 FROM subscribers LIMIT 1", logger: logger).collect().isEmpty else {
                return .noAudience
            }
        case .unicast(let id), .test(let id):
            guard try await Self.subscriberExists(id.rawValue, on: connection, logger: logger) else { return .unknownSubscriber }
        case .groups(let events, let proto):
            let names = events.map(\.rawValue)
            guard try await Self.groupsHaveAudience(names, proto: proto, on: connection, logger: logger) else { return .noAudience }
            try await connection.query(
                "UPDATE events SET total = total + 1, last = \(now) WHERE name = ANY(\(names)::text[])", logger: logger)
        }
        let (kind, value) = try Self.storedAudience(audience)
        if let statistics = audience.statisticsEvent {
            try await connection.query("""
                INSERT INTO events (name, created, last, total) VALUES (\(statistics.rawValue), \(now), \(now), 1)
                ON CONFLICT (name) DO UPDATE SET total = events.total + 1, last = excluded.last
                """, logger: logger)
        }
        let rows = try await connection.query("""
            INSERT INTO publish_jobs (audience_kind, audience_value, notification, payload, published_at, origin, publish_id)
            VALUES (\(kind), \(value), \(encoded.notification), \(encoded.payload), \(now), \(origin.rawValue), \(content.publishID))
            RETURNING id
            """, logger: logger).map { try $0.decode(Int64.self) }
        guard let id = rows.first else { throw StoreError.corruptRow("publish_jobs: no id") }
        try await notify(.jobs, on: connection)
        return .queued(jobID: id)
    }

    /// The columns ``job(_:)`` reads, in its order.
    static let jobColumns = "id, audience_kind, audience_value, notification, published_at, cursor, pending, origin, payload, end_id"

    /// Leases the oldest free jobs: rows another node is claiming at this instant are skipped
    /// (`SKIP LOCKED`), not waited for, so nodes never queue behind each other's claims.
    public func claimJobs(limit: Int, lease: Lease, nowMillis: Int64) async throws -> [PublishJob] {
        guard limit > 0 else { return [] }
        let logger = self.logger
        let rows = try await withConnection { connection in
            try await connection.query("""
                UPDATE publish_jobs AS j SET lease_owner = \(lease.owner), lease_expires = \(lease.expiresAt)
                FROM (
                    SELECT id FROM publish_jobs
                    WHERE lease_expires IS NULL OR lease_expires < \(nowMillis)
                    ORDER BY id LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                ) AS free
                WHERE j.id = free.id
                RETURNING \(unescaped: Self.jobColumns.split(separator: ",").map { "j." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                """, logger: logger).map(Self.jobTuple)
        }
        let jobs = try rows.map(Self.job).sorted { $0.id < $1.id }
        let started = jobs.compactMap(\.receiptID)
        if !started.isEmpty {
            _ = try await withConnection { connection in
                try await connection.query(
                    "UPDATE publishes SET started = \(nowMillis / 1000) WHERE started IS NULL AND id = ANY(\(started)::text[])", logger: logger)
            }
        }
        return jobs
    }

    /// The raw columns of a job row.
    typealias JobTuple = (Int64, String, String?, String?, Int64, String?, String?, String, String?, String?)

    static func jobTuple(_ row: PostgresRow) throws -> JobTuple {
        try row.decode(JobTuple.self)
    }

    /// Reads a job selected as ``jobColumns``.
    static func job(_ t: JobTuple) throws -> PublishJob {
        let (id, kind, value, notification, publishedAt, cursor, pending, origin, payload, end) = t
        let audience: PublishAudience
        switch (kind, value) {
        case ("subscribers", let name?): audience = .subscribers(try PostgresCodec.eventName(name, table: "publish_jobs"))
        case ("broadcast", _): audience = .broadcast
        case ("unicast", let id?): audience = .unicast(SubscriberID(rawValue: id))
        case ("test", let id?): audience = .test(SubscriberID(rawValue: id))
        case (groupsKind, let list?): audience = try groupsAudience(list, jobID: id)
        default: throw StoreError.corruptRow("publish_jobs \(id): unknown audience \(kind)")
        }
        return PublishJob(
            id: id, audience: audience, origin: DeliveryOrigin(rawValue: origin),
            content: try PostgresCodec.content(notification: notification, payload: payload, table: "publish_jobs", id: id),
            publishedAt: publishedAt, cursor: cursor.map(SubscriberID.init(rawValue:)),
            pending: try PendingMembersCodec.members(pending, jobID: id), end: end.map(SubscriberID.init(rawValue:)))
    }

    /// Run first in the transaction of an audience page. On subscriptions without statistics
    /// (filled moments before, as by a bulk registration or an import, and not yet analysed),
    /// the planner guessed a page's range at 92 rows and read it by a bitmap scan of every
    /// subscription after the cursor, sorted for the page: 20 of a page's 30 ms at 100,000
    /// subscribers, more on every page the larger the audience, so a first fan-out took time
    /// quadratic in its size. Without bitmap scans the range is read in index order and stops at
    /// the page's end, whatever the statistics say.
    ///
    /// Memoize is off too: the planner put a cache in front of the badge lookups, which a page,
    /// each of whose subscribers comes once, can only miss (1,000 misses a page; without it the
    /// page ran in 4.3–4.5 ms instead of 4.7–5.2 on 100,000 subscribers).
    static let audiencePagePlan = planTurningOff(audiencePagePlanMethods)

    /// The planner methods ``audiencePagePlan`` turns off; ``badgePagePlan`` and ``rangePagePlan`` turn off more.
    private static let audiencePagePlanMethods = ["enable_bitmapscan", "enable_memoize"]

    /// The plan of an event's page read by ``AudiencePageJoin/rangeMerge``, whatever the
    /// statistics say: the subscriptions' range in index order, and the subscribers' and badges'
    /// ranges from the cursor on merged with it in key order, so that each stops where the page
    /// ends. A hash join would read the whole rest of both tables after the cursor; a nested loop
    /// is the key lookups the merge replaces.
    static let rangePagePlan = planTurningOff(audiencePagePlanMethods + ["enable_seqscan", "enable_nestloop", "enable_hashjoin"])

    /// The settings of an event's page read with `join`, incrementing badges or not: its plan's,
    /// and a generic plan for its prepared statement (``EventPageStatement``), made once per
    /// connection instead of for every page. The methods turned off leave one plan whatever the
    /// page's values, so the generic plan is the one the values would get. A plain page by key
    /// lookups also has sequential scans off: a generic plan does not know the page's size (it
    /// guesses a tenth of the range), so its costs alone would not rule out reading every
    /// subscription of the event and sorting them.
    static func eventPagePlan(_ join: AudiencePageJoin, incrementingBadges: Bool) -> String {
        switch join {
        case .keyLookups: incrementingBadges ? badgePageGenericPlan : lookupPageGenericPlan
        case .rangeMerge: rangePageGenericPlan
        }
    }

    private static let genericPlan = ", set_config('plan_cache_mode', 'force_generic_plan', true)"
    private static let lookupPageGenericPlan = planTurningOff(audiencePagePlanMethods + ["enable_seqscan"]) + genericPlan
    private static let badgePageGenericPlan = badgePagePlan + genericPlan
    private static let rangePageGenericPlan = rangePagePlan + genericPlan

    /// The page's subscriptions (`sub`) joined to their subscribers (`s`) and badges (`b`, with
    /// the badge row's `ctid` when `badgeRowID`) by `join`; `bounded` when `$5` is the part's
    /// last id. Each key lookup is a subquery of its own (`OFFSET 0`, see
    /// ``audience(of:after:limit:)``); the ranges start after the cursor `$2`, or a merge would
    /// walk the tables from their first row.
    static func memberJoins(_ join: AudiencePageJoin, badgeRowID: Bool, bounded: Bool) -> String {
        let badgeColumns = badgeRowID ? "ctid, badge" : "badge"
        switch join {
        case .keyLookups:
            return """
                JOIN LATERAL (SELECT * FROM subscribers WHERE subscribers.id = sub.subscriber_id OFFSET 0) AS s ON true
                LEFT JOIN LATERAL (SELECT \(badgeColumns) FROM badges WHERE badges.subscriber_id = s.id OFFSET 0) AS b ON true
                """
        case .rangeMerge:
            return """
                JOIN (SELECT * FROM subscribers WHERE id > $2\(bounded ? " AND id <= $5" : "")) AS s ON s.id = sub.subscriber_id
                LEFT JOIN (
                    SELECT subscriber_id, \(badgeColumns) FROM badges WHERE subscriber_id > $2\(bounded ? " AND subscriber_id <= $5" : "")
                ) AS b ON b.subscriber_id = s.id
                """
        }
    }

    /// The subscribers after `$1` up to `$2` included, counted in index order up to `$3`.
    static let rangeCount = "SELECT count(*) FROM (SELECT 1 FROM subscribers WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3) AS r"

    /// Counts the subscribers in the range of ids of a full page `members` read after `cursor`
    /// (at most ``AudiencePageJoins/countCap(members:)``, in index order) and records it, which
    /// decides how the job's next pages join (``AudiencePageJoins``). A page that is not full
    /// ends its job and decides nothing.
    func countRange(
        of members: [AudienceMember], after cursor: String, limit: Int, jobID: Int64, on connection: PostgresConnection
    ) async throws {
        guard members.count == limit, let last = members.last?.subscriber.id.rawValue else { return }
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(cursor)
        bindings.append(last)
        bindings.append(AudiencePageJoins.countCap(members: members.count))
        let counts = try await connection.query(PostgresQuery(unsafeSQL: Self.rangeCount, binds: bindings), logger: logger)
            .map { try $0.decode(Int.self) }
        let count = counts.first ?? 0
        pageJoins.withLock { $0.record(jobID: jobID, members: members.count, subscribersInRange: count) }
    }

    /// A statement that turns the planner `methods` off for the rest of its transaction.
    private static func planTurningOff(_ methods: [String]) -> String {
        "SELECT " + methods.map { "set_config('\($0)', 'off', true)" }.joined(separator: ", ")
    }

    /// A keyset page of an event's audience, joined by `join`: `$1` the event, `$2` the cursor
    /// (`''` for none), `$3` the page size; the subscribers' columns, then `ignore_message`.
    static func eventAudiencePage(_ join: AudiencePageJoin) -> String {
        """
        SELECT \(PostgresCodec.subscriberColumns), sub.ignore_message
        FROM (
            SELECT subscriber_id, ignore_message FROM subscriptions
            WHERE event = $1 AND subscriber_id > $2
            ORDER BY subscriber_id LIMIT $3
        ) AS sub
        \(memberJoins(join, badgeRowID: false, bounded: false))
        ORDER BY sub.subscriber_id
        """
    }

    /// Reads one keyset page: an index range of the event's subscriptions joined to their
    /// subscribers and badges, a range of the subscribers table for broadcast, or a merge of
    /// several events' ranges for groups, in one statement (for events and groups, in a
    /// transaction of its own under ``audiencePagePlan``).
    ///
    /// The page is taken from the subscriptions' index range first, and its subscribers and
    /// badges are looked up row by row through their primary keys, a plan that does not depend on
    /// statistics. Joined as tables, the planner merge-joined the subscribers from their start to
    /// reach the cursor (35 ms for a page near the end of 100,000 subscribers, against 1 ms), and
    /// on a database whose tables had no statistics yet (a first fan-out after filling it) scanned
    /// whole tables for every page. A plain `LATERAL` subquery is no guard: PostgreSQL pulls it up
    /// into an ordinary join, and with statistics it hash-joined a sequential scan of all
    /// 100,000 subscribers to every page (15–19 ms against 5 ms). `OFFSET 0` keeps each lookup a
    /// subquery of its own, run per row through the primary key. An event whose audience is most
    /// of the subscribers has its pages after the first merged with the subscribers' and badges'
    /// ranges from the cursor on instead (``AudiencePageJoins``), under a plan that allows
    /// nothing else (``rangePagePlan``).
    public func audience(of job: PublishJob, after cursor: SubscriberID?, limit: Int) async throws -> [AudienceMember] {
        guard limit > 0 else { return [] }
        let logger = self.logger
        // The empty string sorts before every id in the "C" collation: no cursor is "after ''".
        let after = cursor?.rawValue ?? ""
        switch job.audience {
        case .subscribers(let event):
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(event.rawValue)
            bindings.append(after)
            bindings.append(limit)
            return try await eventPage(
                of: job, after: after, limit: limit, bindings: bindings, incrementingBadges: false, decode: PostgresCodec.member)
        case .broadcast:
            return try await withConnection { connection in
                try await connection.query("""
                    SELECT \(unescaped: PostgresCodec.subscriberColumns)
                    FROM subscribers AS s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id OFFSET 0) AS b ON true
                    WHERE s.id > \(after) ORDER BY s.id LIMIT \(limit)
                    """, logger: logger).map { AudienceMember(subscriber: try PostgresCodec.subscriber($0), silent: false) }
            }
        case .unicast(let id), .test(let id):
            if let cursor, !(cursor < id) { return [] }
            return try await subscribers([id]).map { AudienceMember(subscriber: $0, silent: false) }
        case .groups(let events, let proto):
            return try await withTransaction(settings: Self.audiencePagePlan) { connection in
                try await Self.groupsPage(events, proto: proto, after: cursor, limit: limit, on: connection, logger: logger)
            }
        }
    }

    /// An event's audience page whose badge-counting members' badges are incremented in the
    /// same statement: `$1` the event, `$2` the cursor, `$3` the page size, `$4` the counting
    /// providers, and with `bounded`, `$5` the part's end. Each badge row is read with its
    /// `ctid` and written at that `ctid` (a TID scan): no second key lookup, and a row changed
    /// meanwhile (another version by then) is not written, so its member comes back unmarked. A
    /// member without a badge row (none until its first counted delivery, see migration 6) gets
    /// one, `"1"`: the page's new rows are appended together, in id order, where the next
    /// fan-outs find them side by side. The insert is a plain one: `ON CONFLICT` made the first
    /// fan-out's statements a third slower (0.49–0.59 s against 0.37–0.40 s replayed for
    /// 100,000), so a row another transaction created since the page's snapshot fails the
    /// statement instead, and ``eventPage(of:after:limit:bindings:incrementingBadges:decode:)``
    /// reads the page again, finding the row. The rule is
    /// ``BadgeLogic/incrementedStoredBadge(_:)``'s: a strict integer within ±2^53−1 plus one, else
    /// `"1"` (the conformance suite checks the two agree). Run under
    /// ``eventPagePlan(_:incrementingBadges:)``.
    static func eventAudiencePageIncrementingBadges(_ join: AudiencePageJoin, bounded: Bool) -> String {
        let maximum = BadgeLogic.maximumMagnitude
        return """
            WITH page AS MATERIALIZED (
                SELECT \(PostgresCodec.subscriberColumns), sub.ignore_message, b.ctid AS badge_row
                FROM (
                    SELECT subscriber_id, ignore_message FROM subscriptions
                    WHERE event = $1 AND subscriber_id > $2\(bounded ? " AND subscriber_id <= $5" : "")
                    ORDER BY subscriber_id LIMIT $3
                ) AS sub
                \(memberJoins(join, badgeRowID: true, bounded: bounded))
            ),
            bumped AS (
                UPDATE badges SET badge = CASE WHEN \(isStrictInteger("badge")) THEN
                        CASE WHEN abs(badge::bigint) <= \(maximum) AND badge::bigint < \(maximum)
                            THEN (badge::bigint + 1)::text ELSE '1' END
                    ELSE '1' END
                WHERE ctid = ANY(ARRAY(SELECT badge_row FROM page WHERE badge_row IS NOT NULL AND proto = ANY($4::text[])))
                RETURNING subscriber_id
            ),
            created AS (
                INSERT INTO badges (subscriber_id, badge)
                SELECT id, '1' FROM page WHERE badge_row IS NULL AND proto = ANY($4::text[])
                RETURNING subscriber_id
            ),
            counted AS (
                SELECT subscriber_id FROM bumped UNION ALL SELECT subscriber_id FROM created
            )
            SELECT page.id, page.proto, page.token, page.lang, page.badge, page.version, page.category,
                page.content_available, page.created, page.updated, page.failures, page.ignore_message,
                counted.subscriber_id IS NOT NULL
            FROM page LEFT JOIN counted ON counted.subscriber_id = page.id
            ORDER BY page.id
            """
    }

    /// The plan of ``eventAudiencePageIncrementingBadges(_:bounded:)``, whatever the statistics say:
    /// the range in index order (as ``audiencePagePlan``), the badge rows by TID rather than a
    /// scan of the table, and the page matched with the rows written by a hash or merge join. The
    /// row estimates of a range without statistics are tiny, and with them the planner matched
    /// 1,000 rows with 1,000 in a nested loop: 150 of a page's 152 ms in the fan-out benchmark.
    /// The page's lookups stay nested loops: `LATERAL` leaves no other way; without a Memoize
    /// cache in front of the badge lookups, as in ``audiencePagePlan`` (4–5 % of the page's round
    /// trip under pgbench).
    static let badgePagePlan = planTurningOff(audiencePagePlanMethods + ["enable_seqscan", "enable_nestloop"])

    /// Whether `column` is `-?[0-9]{1,16}`, written with `ltrim` and `length`: the same test as a
    /// regular expression at a fraction of its cost, which was 4 % of the database's time in a
    /// badge page (`perf` under pgbench).
    static func isStrictInteger(_ column: String) -> String {
        let sign = "(left(\(column), 1) = '-')::int"
        return "(ltrim(substr(\(column), 1 + \(sign)), '0123456789') = '' AND length(\(column)) - \(sign) BETWEEN 1 AND 16)"
    }

    /// An event's page with its badges incremented in the same statement (one round trip and one
    /// key lookup per badge fewer than a page and then ``incrementBadges(expecting:)``); other
    /// audiences as the plain page.
    public func audience(
        of job: PublishJob, after cursor: SubscriberID?, limit: Int, incrementingBadgesOf counting: Set<String>
    ) async throws -> [AudienceMember] {
        guard case .subscribers(let event) = job.audience, !counting.isEmpty, limit > 0 else {
            return try await audienceToEnd(of: job, after: cursor, limit: limit)
        }
        let after = cursor?.rawValue ?? ""
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(event.rawValue)
        bindings.append(after)
        bindings.append(limit)
        bindings.append(counting.sorted())
        if let end = job.end { bindings.append(end.rawValue) }
        return try await eventPage(
            of: job, after: after, limit: limit, bindings: bindings, incrementingBadges: true, decode: PostgresCodec.memberWithBadgeIncrement)
    }

    /// How many times an event's page is read again after a badge row it would create appeared
    /// meanwhile: each time, the rows that collided are committed and the next read finds them.
    static let badgeRowCollisionAttempts = 5

    /// Reads an event's page with the join ``pageJoins`` chooses for the job, as that join's
    /// prepared statement (``eventPageForm(_:incrementingBadges:bounded:)``) under its plan, and
    /// counts the page's range after it in the same transaction when the choice asks for it.
    ///
    /// A page that increments badges is read again when another transaction created one of its
    /// members' badge rows after the page's snapshot (a unique violation, SQLSTATE 23505): only
    /// fan-outs counting one subscriber's first badge at the same moment collide.
    private func eventPage(
        of job: PublishJob, after cursor: String, limit: Int, bindings: PostgresBindings, incrementingBadges: Bool,
        decode: @escaping @Sendable (PostgresRow) throws -> AudienceMember
    ) async throws -> [AudienceMember] {
        let logger = self.logger
        let choice = pageJoins.withLock { $0.choice(forNextPageOf: job.id) }
        let form = Self.eventPageForm(choice.join, incrementingBadges: incrementingBadges, bounded: job.end != nil)
        var attempt = 1
        while true {
            do {
                return try await withTransaction(settings: Self.eventPagePlan(choice.join, incrementingBadges: incrementingBadges)) { connection in
                    let members = try await Self.page(form, bindings: bindings, on: connection, logger: logger, decode: decode)
                    if choice.countsRange { try await self.countRange(of: members, after: cursor, limit: limit, jobID: job.id, on: connection) }
                    return members
                }
            } catch let error as PostgresQueryError where error.sqlState == "23505" && incrementingBadges && attempt < Self.badgeRowCollisionAttempts {
                logger.debug("a badge row was created meanwhile; reading the page again", metadata: ["job": "\(job.id)", "attempt": "\(attempt)"])
                attempt += 1
            }
        }
    }

    /// The rows of an event page's statement `form`, decoded by `decode`.
    private static func page<Form: EventPageForm>(
        _ form: Form.Type, bindings: PostgresBindings, on connection: PostgresConnection, logger: Logger,
        decode: (PostgresRow) throws -> AudienceMember
    ) async throws -> [AudienceMember] {
        var members: [AudienceMember] = []
        for try await row in try await connection.execute(EventPageStatement<Form>(bindings: bindings), logger: logger) {
            members.append(try decode(row))
        }
        return members
    }

    /// Moves the cursor and renews the lease, only while the caller still owns the job.
    public func checkpoint(jobID: Int64, cursor: SubscriberID, lease: Lease) async throws -> Bool {
        let logger = self.logger
        return try await withConnection { connection in
            try await !connection.query("""
                UPDATE publish_jobs SET cursor = \(cursor.rawValue), pending = NULL, lease_expires = \(lease.expiresAt)
                WHERE id = \(jobID) AND lease_owner = \(lease.owner) RETURNING 1
                """, logger: logger).collect().isEmpty
        }
    }

    /// Deletes the job only if `owner` still holds it: a worker that lost its lease must not
    /// remove a job another worker is still fanning out.
    public func completeJob(jobID: Int64, owner: String) async throws {
        let logger = self.logger
        try await withTransaction { connection in
            let publishes = try await connection.query(
                "DELETE FROM publish_jobs WHERE id = \(jobID) AND lease_owner = \(owner) RETURNING publish_id", logger: logger
            ).map { try $0.decode(String?.self) }.compactMap { $0 }
            try await Self.finishPublishes(publishes, on: connection, logger: logger)
        }
        pageJoins.withLock { $0.forget(jobID: jobID) }
    }

    /// Clears the lease columns of everything `owner` holds, in one transaction, and tells the
    /// other nodes there is work to take over.
    public func releaseLeases(owner: String) async throws {
        let logger = self.logger
        try await withTransaction { connection in
            try await connection.query(
                "UPDATE publish_jobs SET lease_owner = NULL, lease_expires = NULL WHERE lease_owner = \(owner)", logger: logger)
            try await connection.query("""
                UPDATE retries SET lease_owner = NULL, lease_expires = NULL WHERE lease_expires IS NOT NULL AND lease_owner = \(owner)
                """, logger: logger)
            try await self.notify(.jobs, on: connection)
            try await self.notify(.deliveries, on: connection)
        }
    }

    /// Counts both queues in one statement.
    public func backlog() async throws -> Backlog {
        let logger = self.logger
        return try await withConnection { connection in
            let counts = try await connection.query(
                "SELECT (SELECT count(*) FROM publish_jobs), (SELECT count(*) FROM retries)", logger: logger
            ).map { try $0.decode((Int, Int).self) }
            return Backlog(jobs: counts.first?.0 ?? 0, retries: counts.first?.1 ?? 0)
        }
    }
}
