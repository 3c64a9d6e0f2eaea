import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Numbers the audience in id order with a window over its index range and keeps every
    /// `every`-th id, except the last member's.
    public func audienceBoundaries(of job: PublishJob, every: Int, limit: Int) async throws -> [SubscriberID] {
        guard every > 0, limit > 0 else { return [] }
        let logger = self.logger
        let ids: [String] = try await withConnection { connection in
            switch job.audience {
            case .subscribers(let event):
                return try await connection.query("""
                    SELECT id FROM (
                        SELECT subscriber_id AS id, row_number() OVER (ORDER BY subscriber_id) AS n, count(*) OVER () AS total
                        FROM subscriptions WHERE event = \(event.rawValue)
                    ) AS numbered WHERE n % \(every) = 0 AND n < total ORDER BY id LIMIT \(limit)
                    """, logger: logger).map { try $0.decode(String.self) }
            case .broadcast:
                return try await connection.query("""
                    SELECT id FROM (
                        SELECT id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS total FROM subscribers
                    ) AS numbered WHERE n % \(every) = 0 AND n < total ORDER BY id LIMIT \(limit)
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
                WHERE id = \(jobID) AND lease_owner = \(lease.owner) AND cursor IS NULL AND pending IS NULL AND end_id IS NULL
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
