import HeraldCore

/// What the store owns besides its rows: its connections, the time every node agrees on, and
/// the stream that wakes nodes when work arrives.
public protocol StoreRuntime: Sendable {
    /// The clock leases, due times and timestamps are reckoned in.
    ///
    /// A store that one process owns (SQLite) reads the process's clock; a store shared by
    /// several nodes reads the database server's, so that they agree on when a lease expires
    /// or a retry is due whatever their own clocks say. Every part of Herald reads this one.
    var clock: WallClock { get }

    /// Runs what the store owns while Herald runs (a connection pool's background work, a
    /// listener for other nodes' wake-ups) until its task is cancelled, which happens after every
    /// other service stopped; connections are closed by ``StoreHealth/close()`` after that. A
    /// store with nothing to run waits for the cancellation.
    func run() async throws

    /// A stream of wake-ups: new jobs, new deliveries, and accepted events for Server-Sent
    /// Events listeners. An embedded store fills it in-process; a shared one across nodes, so a
    /// listener on one node gets what was published on another.
    func wakeUps() -> AsyncStream<StoreWakeUp>

    /// Announces an accepted event to the Server-Sent Events listeners of every node (as
    /// ``StoreWakeUp/event(_:)``), whether or not it had subscribers.
    func announce(_ event: PublishedEvent) async throws
}
