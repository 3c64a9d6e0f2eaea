import Foundation
import GRDB
import GRDBSQLite
import HeraldCore
import HeraldStore

/// ``HeraldStore`` on one SQLite database file in WAL mode (GRDB `DatabasePool`).
///
/// SQLite runs one writer at a time, so each method that must be atomic is a single
/// write transaction and claims need no row locks: a claim is one conditional
/// `UPDATE … RETURNING`. Reads (API lookups, audience pages, statistics) run on
/// reader connections beside the writer. Another process opening the same file
/// waits for the write lock (busy timeout) instead of failing.
///
/// Batches (badge increments, delivery records, cascades) pass their ids as one JSON
/// array bound to `json_each(?)`, so a page of 500 subscribers costs a few cached
/// statements rather than one statement per subscriber.
public final class SQLiteStore: HeraldStore {
    /// How many fresh ids a registration draws before giving up (§3.1).
    static let idDraws = 10

    /// The oldest SQLite with everything the schema and queries use
    /// (`RETURNING` 3.35, `UPDATE … FROM` 3.33, `STRICT` tables 3.37).
    static let minimumSQLiteVersion = 3_037_000

    let pool: DatabasePool
    let makeID: @Sendable () -> SubscriberID
    /// The process's clock: one machine owns the file, so its time is the store's.
    public let clock: WallClock
    /// Wake-ups, filled in-process after each commit that brings work.
    let wakeUpHub = StoreWakeUps()
    /// Registrations and publishes: concurrent ones share one transaction and its sync.
    let groupCommit: SQLiteGroupCommit
    /// Copies the log into the database file beside the writer, not on it.
    let checkpointer: SQLiteCheckpointer

    /// Opens (creating if needed) the database at `path` and brings its schema up to date;
    /// `clock` is the time leases and due times are reckoned in (tests drive it).
    public convenience init(path: String, clock: WallClock = .system) throws {
        try self.init(path: path, clock: clock, makeID: SubscriberID.random)
    }

    /// Opens the database with a custom id generator (tests force id collisions) and checkpointer
    /// (tests checkpoint after a few pages).
    init(
        path: String, clock: WallClock = .system, makeID: @escaping @Sendable () -> SubscriberID,
        checkpointer: SQLiteCheckpointer = SQLiteCheckpointer()
    ) throws {
        self.clock = clock
        self.checkpointer = checkpointer
        var configuration = Configuration()
        // Writers from other processes (a second `herald` on the same file, `herald import`)
        // wait this long for the lock rather than failing at once.
        configuration.busyMode = .timeout(30)
        configuration.foreignKeysEnabled = true
        configuration.label = "HeraldStore"
        configuration.prepareDatabase { db in checkpointer.install(on: db) }
        pool = try DatabasePool(path: path, configuration: configuration)
        groupCommit = SQLiteGroupCommit(pool: pool)
        self.makeID = makeID
        do {
            let version = try pool.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") } ?? ""
            guard Self.versionNumber(version) >= Self.minimumSQLiteVersion else {
                throw StoreError.unsupportedDatabase("SQLite \(version) is older than 3.37")
            }
            try SQLiteSchema.migrator.migrate(pool)
            try checkpointer.open(path: path)
        } catch {
            try? pool.close()
            throw error
        }
    }

    /// `"3.40.1"` → `3_040_001`, the form of `SQLITE_VERSION_NUMBER`.
    static func versionNumber(_ version: String) -> Int {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 } + [0, 0, 0]
        return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2]
    }

    /// Closes every connection; the store cannot be used afterwards.
    ///
    /// Synchronous so that it can also run from `deinit`-like shutdown paths; it satisfies
    /// the protocol's `async` requirement as well.
    public func close() throws {
        wakeUpHub.finish()
        checkpointer.close()
        // GRDB closes the writer before the readers, so SQLite's checkpoint at the last close never
        // ran and the log stayed behind, however large: the next start replayed and copied it. Fold
        // it in and empty it here. Without waiting: another process on the file must not be held
        // up, so if it is reading or writing, copy what can be copied and leave the log.
        try? pool.writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, 0)
            if (try? db.checkpoint(.truncate)) == nil {
                _ = try db.checkpoint(.passive)
            }
        }
        try pool.close()
    }
}
