import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Run first in the badge transaction. With the default cost of a random page (4, a spinning
    /// disk's) the planner read a page of 1,000 ids at 100,000 subscribers by scanning the whole
    /// table (about 10 ms a page, against 7). Priced as a cached, SSD-backed database's, it looks
    /// the ids up through the primary key (a bitmap index scan) at every size.
    static let badgePageCosts = "SET LOCAL random_page_cost = 1.1"

    /// A page of badges incremented where they are as read: `$1` ids, `$2` expected badges, `$3`
    /// whether each expected badge is absent, `$4` the new badges; returns the ids written.
    ///
    /// An absent badge is usually no row at all (rows are made at the first count, see migration
    /// 6): such a row is created here for a subscriber that exists, so that a first broadcast's
    /// page is one statement too. A row another transaction created meanwhile is left alone
    /// (`ON CONFLICT DO NOTHING`), its id not returned.
    static let badgeIncrement = """
        WITH updated AS (
            UPDATE badges AS b SET badge = e.new
            FROM unnest($1::text[], $2::text[], $3::bool[], $4::text[]) AS e(id, expected, expected_null, new)
            WHERE b.subscriber_id = ANY($1::text[]) AND b.subscriber_id = e.id
              AND CASE WHEN e.expected_null THEN b.badge IS NULL ELSE b.badge = e.expected END
            RETURNING b.subscriber_id
        ), created AS (
            INSERT INTO badges (subscriber_id, badge)
            SELECT e.id, e.new FROM unnest($1::text[], $3::bool[], $4::text[]) AS e(id, expected_null, new)
            WHERE e.expected_null
              AND EXISTS (SELECT 1 FROM subscribers WHERE subscribers.id = e.id)
              AND NOT EXISTS (SELECT 1 FROM badges WHERE badges.subscriber_id = e.id)
            ORDER BY e.id
            ON CONFLICT (subscriber_id) DO NOTHING
            RETURNING subscriber_id
        )
        SELECT subscriber_id FROM updated UNION ALL SELECT subscriber_id FROM created
        """

    /// Increments a page of badges with one statement when they are as the caller read them (the
    /// usual case), and up to two more a round for those that changed meanwhile. ``BadgeLogic``
    /// holds the rule, so the new values are computed here and bound as arrays.
    public func incrementBadges(expecting expectations: [BadgeExpectation]) async throws -> [BadgeIncrement] {
        guard !expectations.isEmpty else { return [] }
        // An id listed twice is incremented once: its first listing answers for every listing.
        var first: [SubscriberID: Int] = [:]
        var ids: [String] = []
        var expected: [String] = []
        var expectedNull: [Bool] = []
        var incremented: [String] = []
        for (index, expectation) in expectations.enumerated() where first[expectation.id] == nil {
            first[expectation.id] = index
            ids.append(expectation.id.rawValue)
            expected.append(expectation.storedBadge ?? "")
            expectedNull.append(expectation.storedBadge == nil)
            incremented.append(BadgeLogic.incrementedStoredBadge(expectation.storedBadge))
        }
        let logger = self.logger
        let (ids_, expected_, expectedNull_, incremented_) = (ids, expected, expectedNull, incremented)
        let before: [SubscriberID: String?] = try await withTransaction(settings: Self.badgePageCosts) { connection in
            var before: [SubscriberID: String?] = [:]
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(ids_)
            bindings.append(expected_)
            bindings.append(expectedNull_)
            bindings.append(incremented_)
            let written = try await connection.query(PostgresQuery(unsafeSQL: Self.badgeIncrement, binds: bindings), logger: logger)
                .map { try $0.decode(String.self) }
            var stale = Set(ids_)
            for id in written {
                stale.remove(id)
            }
            for (index, id) in ids_.enumerated() where !stale.contains(id) {
                before[SubscriberID(rawValue: id)] = .some(expectedNull_[index] ? nil : expected_[index])
            }
            guard !stale.isEmpty else { return before }
            var unresolved = stale.sorted()
            // Two rounds settle every id: a row another transaction creates between the first
            // round's read and its insert is committed by the time the insert gives way to it,
            // and the second round reads it.
            for _ in 0..<2 where !unresolved.isEmpty {
                // Changed (or reset) since the caller read them: read under a row lock and write
                // from the stored value.
                let rows = try await connection.query("""
                    SELECT subscriber_id, badge FROM badges WHERE subscriber_id = ANY(\(unresolved)::text[])
                    ORDER BY subscriber_id FOR UPDATE
                    """, logger: logger).map { try $0.decode((String, String?).self) }
                if !rows.isEmpty {
                    var updateIDs: [String] = []
                    var updateBadges: [String] = []
                    for (id, badge) in rows {
                        before[SubscriberID(rawValue: id)] = .some(badge)
                        updateIDs.append(id)
                        updateBadges.append(BadgeLogic.incrementedStoredBadge(badge))
                    }
                    try await connection.query("""
                        UPDATE badges AS b SET badge = e.new FROM unnest(\(updateIDs)::text[], \(updateBadges)::text[]) AS e(id, new)
                        WHERE b.subscriber_id = ANY(\(updateIDs)::text[]) AND b.subscriber_id = e.id
                        """, logger: logger)
                    let written = Set(updateIDs)
                    unresolved.removeAll { written.contains($0) }
                }
                guard !unresolved.isEmpty else { break }
                // No badge row (none until a first count): created from no badge for the
                // subscribers that still exist; the others are gone.
                let created = try await connection.query("""
                    WITH present AS (
                        SELECT id FROM subscribers WHERE id = ANY(\(unresolved)::text[])
                    ), created AS (
                        INSERT INTO badges (subscriber_id, badge) SELECT id, \(BadgeLogic.incrementedStoredBadge(nil)) FROM present ORDER BY id
                        ON CONFLICT (subscriber_id) DO NOTHING
                        RETURNING subscriber_id
                    )
                    SELECT present.id, created.subscriber_id IS NOT NULL FROM present LEFT JOIN created ON created.subscriber_id = present.id
                    """, logger: logger).map { try $0.decode((String, Bool).self) }
                var conflicted: [String] = []
                for (id, inserted) in created {
                    if inserted {
                        before[SubscriberID(rawValue: id)] = .some(nil)
                    } else {
                        conflicted.append(id)
                    }
                }
                unresolved = conflicted.sorted()
            }
            return before
        }
        return expectations.map { BadgeIncrement(previous: before[$0.id]) }
    }
}
