import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Runs the connection pool, then migrates the schema (waiting for the database as long as it
    /// is unreachable), reads the database's clock, and listens for the other nodes' wake-ups;
    /// returns when its task is cancelled or ``close()`` is called.
    ///
    /// - Throws: what made the start fail for good (a schema newer than this build); connection
    ///   failures are retried instead.
    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let client = self.client
            group.addTask { await client.run() }
            group.addTask { try await self.start() }
            group.addTask { await self.listen() }
            group.addTask {
                // Polled: close() may come from any task, and this child must also end on cancellation.
                while !self.lifecycle.isClosed {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            defer { group.cancelAll() }
            // The first child to end decides: close() (or the pool stopping) ends the store, a failed start throws.
            try await group.next()
        }
    }

    /// Waits until the store has connected and migrated, or throws what stops it (for tests and
    /// tools that use the store without waiting for their first call to do so).
    public func waitUntilReady(timeout: Duration = .seconds(30)) async throws {
        try await lifecycle.waitUntilReady(timeout: timeout)
    }

    /// How long after a subscriber's deletion its `badge_leftovers` entry is swept: far longer
    /// than any page statement that could have started before the deletion runs.
    static let badgeLeftoverAge = Duration.seconds(600)

    /// Migrates and reads the clock, retrying while the database is unreachable, then keeps the
    /// clock's offset fresh, prunes old announcements and sweeps badge leftovers.
    private func start() async throws {
        var delay = Duration.milliseconds(100)
        while true {
            do {
                try await client.withConnection { connection in
                    try await self.migrate(on: connection)
                    try await self.readClock(on: connection)
                }
                lifecycle.markReady()
                logger.info("PostgreSQL store ready", metadata: ["database": "\(configuration)"])
                break
            } catch {
                let mapped = Self.storeError(error)
                if mapped is CancellationError { throw mapped }
                guard (mapped as? StoreError) == .unavailable else {
                    logger.error("cannot start the PostgreSQL store", metadata: ["error": "\(mapped)"])
                    lifecycle.markFailed(mapped)
                    throw mapped
                }
                logger.warning("PostgreSQL is unreachable; retrying", metadata: ["error": "\(mapped)", "retry_in": "\(delay)"])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        while true {
            try await Task.sleep(for: configuration.clockRefreshInterval)
            do {
                try await withConnection { connection in
                    try await self.readClock(on: connection)
                    try await self.pruneAnnouncements(on: connection)
                    try await Self.sweepBadgeLeftovers(olderThan: Self.badgeLeftoverAge, on: connection, logger: self.logger)
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // The cached offset stays valid while the database is away; the next round corrects it.
                logger.debug("cannot read the database's clock", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Measures the offset of the database's clock (`clock_timestamp()`: the time of reading, not
    /// of the transaction's start) against the monotonic clock.
    func readClock(on connection: PostgresConnection) async throws {
        let before = DatabaseClock.monotonicMillis()
        let rows = try await connection.query(
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", logger: logger
        ).collect()
        let after = DatabaseClock.monotonicMillis()
        guard let row = rows.first else { throw StoreError.corruptRow("no clock reading") }
        databaseClock.correct(serverMillis: try row.decode(Int64.self), before: before, after: after)
    }

    /// This process's subscribers get its own commits' wake-ups in-process, and the other nodes'
    /// through ``run()``'s listener.
    public func wakeUps() -> AsyncStream<StoreWakeUp> {
        wakeUpHub.subscribe()
    }

    /// Hands the event to this process's listeners at once and to every other node's by `NOTIFY`:
    /// in the payload when it fits, else as the id of an `announcements` row.
    public func announce(_ event: PublishedEvent) async throws {
        let message = try WakeUpMessage.event(event).payload(from: nodeID)
        if message.utf8.count <= WakeUpMessage.payloadLimit {
            try await notify(message)
        } else {
            let json = try WakeUpMessage.eventJSON(event)
            let channel = configuration.channel
            let nodeID = self.nodeID
            let logger = self.logger
            try await withTransaction { connection in
                let rows = try await connection.query("INSERT INTO announcements (event) VALUES (\(json)) RETURNING id", logger: logger).collect()
                guard let id = try rows.first?.decode(Int64.self) else { throw StoreError.corruptRow("no announcement id") }
                let reference = try WakeUpMessage.eventReference(id).payload(from: nodeID)
                try await connection.query("SELECT pg_notify(\(channel), \(reference))", logger: logger)
            }
        }
        wakeUpHub.yield(.event(event))
    }

    /// Sends one notification on the channel, outside any transaction.
    func notify(_ payload: String) async throws {
        let channel = configuration.channel
        let logger = self.logger
        try await withConnection { connection in
            _ = try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger).collect()
        }
    }

    /// Queues a notification inside the caller's transaction: PostgreSQL sends it at the commit,
    /// and not at all if the transaction rolls back.
    func notify(_ message: WakeUpMessage, on connection: PostgresConnection) async throws {
        let payload = try message.payload(from: nodeID)
        try await connection.query("SELECT pg_notify(\(configuration.channel), \(payload))", logger: logger)
    }

    /// Deletes announcements old enough that every listening node has read them.
    private func pruneAnnouncements(on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM announcements WHERE created < now() - interval '5 minutes'", logger: logger)
    }
}
