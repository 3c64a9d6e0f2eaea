import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log into the database file on a connection of its own, so that the
/// writer does not stop to do it.
///
/// SQLite's automatic checkpoint runs on the writer right after a commit once the log has passed
/// 1,000 pages: the writer copies those pages into the database file and syncs it while every
/// queued write waits. Under a stream of registrations that pause, every few hundred commits, was
/// a third of the writer's time. Here the writer's commit hook only asks for a checkpoint; a
/// `PASSIVE` one runs on a separate connection while the writer goes on appending to the log.
///
/// A log written without pause is never rewound by background checkpoints alone (SQLite rewinds
/// it when a write begins only if every frame has been copied), so past ``writerFrames`` the
/// writer checkpoints itself after its commit, as SQLite would have, and no background one is
/// started to compete with it; the background checkpoints have copied most of the log by then.
final class SQLiteCheckpointer: Sendable {
    /// Log pages after which a background checkpoint is started: SQLite's own default.
    static let defaultBackgroundFrames: Int32 = 1_000
    /// Log pages (about 32 MiB) after which the writer checkpoints itself so the log can restart.
    static let defaultWriterFrames: Int32 = 8_000

    /// Log pages after which a background checkpoint is started.
    let backgroundFrames: Int32
    /// Log pages after which the writer checkpoints itself (and starts none in the background).
    let writerFrames: Int32

    private struct State {
        /// The checkpointing connection; `nil` before ``open(path:)`` and after ``close()``.
        var connection: DatabaseQueue?
        /// Whether a background checkpoint is queued or running.
        var running = false
        /// The log's length when the last background checkpoint was started; a shorter log has restarted.
        var framesAtLastStart: Int32 = 0
    }

    private let state = Mutex(State())

    /// A checkpointer starting at the given log lengths, in pages (tests use small ones).
    init(backgroundFrames: Int32 = defaultBackgroundFrames, writerFrames: Int32 = defaultWriterFrames) {
        self.backgroundFrames = backgroundFrames
        self.writerFrames = writerFrames
    }

    /// Opens the checkpointing connection; the database must already be in WAL mode.
    func open(path: String) throws {
        var configuration = Configuration()
        configuration.label = "HeraldStore.checkpointer"
        // A checkpoint never waits (PASSIVE); the busy timeout only covers opening.
        configuration.busyMode = .timeout(5)
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        state.withLock { $0.connection = connection }
    }

    /// Closes the checkpointing connection after the checkpoint in progress, if any.
    func close() {
        let connection = state.withLock { state -> DatabaseQueue? in
            defer { state.connection = nil }
            return state.connection
        }
        try? connection?.close()
    }

    /// Returns once every background checkpoint started so far has run (its queue is serial).
    func waitForStartedCheckpoints() {
        state.withLock { $0.connection }?.writeWithoutTransaction { _ in }
    }

    /// Replaces SQLite's automatic checkpoint on `db` with a request to this checkpointer.
    ///
    /// The hook's context is this object, unretained: the store keeps it alive as long as its
    /// connections, whose configuration holds the closure that calls this.
    func install(on db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, name, frames in
            let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context!).takeUnretainedValue()
            if checkpointer.logDidGrow(to: frames) {
                // After the commit, with the write lock released, as SQLite's own hook does it;
                // SQLITE_BUSY (a background checkpoint running) is retried at the next commit.
                sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called on the writer after each commit with the log's length in pages; starts a background
    /// checkpoint when one is due and returns whether the writer should checkpoint itself.
    private func logDidGrow(to frames: Int32) -> Bool {
        state.withLock { state in
            // Without its connection (before opening, after closing) the writer does it all, as SQLite would.
            guard let connection = state.connection else { return frames >= backgroundFrames }
            if frames < state.framesAtLastStart { state.framesAtLastStart = 0 }
            // Past the writer's limit a background checkpoint would only make the writer's busy.
            if frames >= writerFrames { return true }
            guard !state.running, frames - state.framesAtLastStart >= backgroundFrames else { return false }
            state.running = true
            state.framesAtLastStart = frames
            // Queued under the lock, so that `close()`, which takes the connection under it, closes
            // it only after this checkpoint (a serial queue runs its blocks in order).
            connection.asyncWriteWithoutTransaction { db in
                _ = try? db.checkpoint(.passive)
                self.state.withLock { $0.running = false }
            }
            return false
        }
    }
}
