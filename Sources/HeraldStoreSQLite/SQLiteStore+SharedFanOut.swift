import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Numbers the audience in id order with a window over its index range and keeps every
    /// `every`-th id, except the last member's.
    public func audienceBoundaries(of job: PublishJob, every: Int, limit: Int) async throws -> [SubscriberID] {
        guard every > 0, limit > 0 else { return [] }
        let range: String
        var arguments: StatementArguments = []
        switch job.audience {
        case .subscribers(let event):
            range = "SELECT subscriber_id AS id FROM subscriptions WHERE event = ?"
            arguments += [event.rawValue]
        case .broadcast:
            range = "SELECT id FROM subscribers"
        case .unicast, .test, .groups:
            return []
        }
        arguments += [every, limit]
        return try await pool.read { [arguments] db in
            try String.fetchAll(
                db.cachedStatement(sql: """
                    SELECT id FROM (
                        SELECT id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS total FROM (\(range))
                    ) WHERE n % ? = 0 AND n < total ORDER BY id LIMIT ?
                    """),
                arguments: arguments
            ).map(SubscriberID.init(rawValue:))
        }
    }

    /// Sets the job's end and inserts one job per further part, copying the job's row, in one
    /// write transaction.
    public func shareJob(jobID: Int64, boundaries: [SubscriberID], lease: Lease) async throws -> Bool {
        guard let first = boundaries.first else { return true }
        // Part i starts after boundary i and ends at boundary i + 1; past the last boundary
        // `json_extract` gives NULL, the open end of the last part.
        let cursors = try SQLiteCodec.jsonArray(boundaries.map(\.rawValue))
        let ends = try SQLiteCodec.jsonArray(boundaries.dropFirst().map(\.rawValue))
        let shared = try await pool.write { db -> Bool in
            try db.cachedStatement(sql: """
                UPDATE publish_jobs SET end_id = ?
                WHERE id = ? AND lease_owner = ? AND end_id IS NULL AND (cursor IS NULL OR cursor < ?)
                """).execute(arguments: [first.rawValue, jobID, lease.owner, first.rawValue])
            guard db.changesCount == 1 else { return false }
            try db.cachedStatement(sql: """
                INSERT INTO publish_jobs (audience_kind, audience_value, origin, notification, payload, published_at, cursor, end_id, publish_id)
                SELECT j.audience_kind, j.audience_value, j.origin, j.notification, j.payload, j.published_at,
                       part.value, json_extract(?, '$[' || part.key || ']'), j.publish_id
                FROM publish_jobs AS j, json_each(?) AS part
                WHERE j.id = ?
                ORDER BY part.key
                """).execute(arguments: [ends, cursors, jobID])
            return true
        }
        if shared { wakeUpHub.yield(.jobs) }
        return shared
    }
}
