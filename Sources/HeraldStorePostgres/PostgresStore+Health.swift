import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    /// Runs `SELECT 1`; throws ``StoreError/unavailable`` while the database cannot be reached.
    public func ping() async throws {
        let logger = self.logger
        try await withConnection { connection in
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        }
    }

    /// Counts every table the API can empty, in one statement (one snapshot).
    public func counts() async throws -> StoreCounts {
        let logger = self.logger
        return try await withConnection { connection in
            let rows = try await connection.query("""
                SELECT (SELECT count(*) FROM subscribers), (SELECT count(*) FROM subscriptions), (SELECT count(*) FROM events),
                       (SELECT count(*) FROM publish_jobs), (SELECT count(*) FROM retries), (SELECT count(*) FROM dead_letters)
                """, logger: logger).collect()
            guard let row = rows.first else { throw StoreError.corruptRow("no counts") }
            let (subscribers, subscriptions, events, jobs, retries, deadLetters) = try row.decode((Int, Int, Int, Int, Int, Int).self)
            return StoreCounts(
                subscribers: subscribers, subscriptions: subscriptions, events: events, jobs: jobs, retries: retries, deadLetters: deadLetters)
        }
    }
}
