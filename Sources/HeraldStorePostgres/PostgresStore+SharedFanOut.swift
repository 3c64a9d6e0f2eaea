import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Walks the audience's index range from cut to cut: each step skips `every` members from the
    /// last cut (a recursive query), so nothing sorts or numbers the whole audience, and a cut
    /// is kept when a member follows it. Numbering every member with a window function instead
    /// sorted the whole range first, once per large publish before its first delivery: 162 ms
    /// against 92 ms for 100,000 subscribers under the fan-out benchmark's load (90 against 36 ms
    /// on a quiet database never analysed). The plan is fixed as for an audience page
    /// (``audiencePagePlan``), so that a range without statistics is still read in index order.
    public func audienceBoundaries(of job: PublishJob, every: Int, limit: Int) async throws -> [SubscriberID] {
        guard every > 0, limit > 0 else { return [] }
        let logger = self.logger
        let skip = every - 1
        let ids: [String] = try await withTransaction(settings: Self.audiencePagePlan) { connection in
            switch job.audience {
            case .subscribers(let event):
                let name = event.rawValue
                return try await connection.query("""
                    WITH RECURSIVE cut(id, n) AS (
                        (SELECT subscriber_id, 1::bigint FROM subscriptions WHERE event = \(name)
                         ORDER BY subscriber_id OFFSET \(skip) LIMIT 1)
                        UNION ALL
                        (SELECT next.subscriber_id, cut.n + 1 FROM cut CROSS JOIN LATERAL (
                            SELECT subscriber_id FROM subscriptions WHERE event = \(name) AND subscriber_id > cut.id
                            ORDER BY subscriber_id OFFSET \(skip) LIMIT 1
                        ) AS next WHERE cut.n < \(limit))
                    )
                    SELECT id FROM cut
                    WHERE EXISTS (SELECT 1 FROM subscriptions WHERE event = \(name) AND subscriber_id > cut.id)
                    ORDER BY id
                    """, logger: logger).map { try $0.decode(String.self) }
            case .broadcast:
                return try await connection.query("""
                    WITH RECURSIVE cut(id, n) AS (
                        (SELECT id, 1::bigint FROM subscribers ORDER BY id OFFSET \(skip) LIMIT 1)
                        UNION ALL
                        (SELECT next.id, cut.n + 1 FROM cut CROSS JOIN LATERAL (
                            SELECT id FROM subscribers WHERE id > cut.id ORDER BY id OFFSET \(skip) LIMIT 1
                        ) AS next WHERE cut.n < \(limit))
                    )
                    SELECT id FROM cut WHERE EXISTS (SELECT 1 FROM subscribers WHERE subscribers.id > cut.id) ORDER BY id
                    """, logger: logger).map { try $0.decode(String.self) }
            case .unicast, .test, .groups:
                return []
            }
        }
        return ids.map(SubscriberID.init(rawValue:))
    }

    /// Sets the job's end and inserts one job per further part, copying the job's row, and wakes
    /// the other nodes, in one transaction.
    public func shareJob(jobID: Int64, boundaries: [SubscriberID], lease: Lease) async throws -> Bool {
        guard let first = boundaries.first else { return true }
        let cursors = boundaries.map(\.rawValue)
        // Part n (from 1) starts after boundary n and ends at boundary n + 1, which is `ends[n]`;
        // past the array's end the subscript gives NULL, the open end of the last part.
        let ends = boundaries.dropFirst().map(\.rawValue)
        let logger = self.logger
        let shared = try await withTransaction { connection -> Bool in
            let held = try await connection.query("""
                UPDATE publish_jobs SET end_id = \(first.rawValue)
                WHERE id = \(jobID) AND lease_owner = \(lease.owner) AND end_id IS NULL AND (cursor IS NULL OR cursor < \(first.rawValue))
                RETURNING id
                """, logger: logger).collect()
            guard !held.isEmpty else { return false }
            try await connection.query("""
                INSERT INTO publish_jobs (audience_kind, audience_value, origin, notification, payload, published_at, cursor, end_id, publish_id)
                SELECT j.audience_kind, j.audience_value, j.origin, j.notification, j.payload, j.published_at,
                       part.cursor, (\(ends)::text[])[part.n], j.publish_id
                FROM publish_jobs AS j, unnest(\(cursors)::text[]) WITH ORDINALITY AS part(cursor, n)
                WHERE j.id = \(jobID)
                ORDER BY part.n
                """, logger: logger)
            try await self.notify(.jobs, on: connection)
            return true
        }
        if shared { wakeUpHub.yield(.jobs) }
        return shared
    }
}
