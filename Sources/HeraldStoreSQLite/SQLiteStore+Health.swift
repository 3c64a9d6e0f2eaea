import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Runs `SELECT 1` on a reader connection: proves the file can be opened and read.
    public func ping() async throws {
        try await pool.read { db in
            try db.execute(sql: "SELECT 1")
        }
    }

    /// Counts every table the API can empty, in one read snapshot (the feedback log is not one).
    public func counts() async throws -> StoreCounts {
        try await pool.read { db in
            guard let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT count(*) FROM subscribers), (SELECT count(*) FROM subscriptions),
                           (SELECT count(*) FROM events), (SELECT count(*) FROM publish_jobs), (SELECT count(*) FROM retries),
                           (SELECT count(*) FROM dead_letters)
                    """
            ) else { throw StoreError.corruptRow("no counts") }
            return StoreCounts(subscribers: row[0], subscriptions: row[1], events: row[2], jobs: row[3], retries: row[4], deadLetters: row[5])
        }
    }
}
