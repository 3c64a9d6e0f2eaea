import HeraldCore
import HeraldStore
import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// ``HeraldStore`` on a PostgreSQL database that several Herald nodes share.
///
/// Work is claimed row by row with `FOR UPDATE SKIP LOCKED` under leases reckoned in the
/// database's clock (``clock``), so every live node takes its share of a fan-out and a dead
/// node's leases expire for the others. Hot paths are set-based: a page of audience, badges,
/// outcomes or retries costs a few statements over bound arrays (`unnest`) or one JSON
/// document (`jsonb_to_recordset`), never a statement per row. Commits that bring work `NOTIFY`
/// the other nodes (``run()`` listens), and announced events travel the same way.
///
/// The connection pool (postgres-nio's `PostgresClient`) runs inside ``run()``; calls made before
/// it has connected and migrated the schema wait up to ``PostgresStoreConfiguration/readyTimeout``.
/// A call that cannot get a connection throws ``StoreError/unavailable``.
public final class PostgresStore: HeraldStore {
    /// How many fresh ids a registration draws before giving up (§3.1).
    static let idDraws = 10
    /// The most writes a group commit puts in one statement: enough for every connection of a
    /// busy node's clients, few enough that one statement stays a millisecond or two.
    static let groupCommitMaxBatch = 256
    /// The batches of one kind committed at once: one, so that under load a batch gathers every
    /// write that arrived during the one before it.
    static let groupCommitMaxLeaders = 1

    let configuration: PostgresStoreConfiguration
    let client: PostgresClient
    let logger: Logger
    let makeID: @Sendable () -> SubscriberID
    /// This process's name on the notification channel: its own notifications are not relayed
    /// twice (they were handed to its listeners in-process at commit).
    let nodeID: String
    let databaseClock = DatabaseClock()
    /// Wake-ups for this process's subscribers, from its own commits and from other nodes'.
    let wakeUpHub = StoreWakeUps()
    let lifecycle = StoreLifecycle()
    /// How each job's event pages join their members' rows (see ``AudiencePageJoins``).
    let pageJoins = Mutex(AudiencePageJoins())
    /// Set while the notification listener is subscribed (tests wait for it).
    let listening = ListeningFlag()
    /// Gathers this node's concurrent registrations into one statement each batch.
    let registrationCommit = PostgresGroupCommit<RegistrationStatement, (subscriber: Subscriber, created: Bool)>(
        maxBatch: PostgresStore.groupCommitMaxBatch, maxLeaders: PostgresStore.groupCommitMaxLeaders)
    /// Gathers this node's concurrent subscriptions into one statement each batch.
    let subscribeCommit = PostgresGroupCommit<SubscribeBatchStatement.Subscription, SubscribeResult>(
        maxBatch: PostgresStore.groupCommitMaxBatch, maxLeaders: PostgresStore.groupCommitMaxLeaders)
    /// Gathers this node's concurrent publishes to events (sent now, without an idempotency key)
    /// into one statement each batch.
    let eventPublishCommit = PostgresGroupCommit<EventPublishStatement, Int64?>(
        maxBatch: PostgresStore.groupCommitMaxBatch, maxLeaders: PostgresStore.groupCommitMaxLeaders)

    /// Whether this node currently receives the other nodes' notifications.
    var isListening: Bool { listening.value }

    /// The database's time (see ``DatabaseClock``).
    public var clock: WallClock { databaseClock.wallClock }

    /// Creates the store; nothing connects until ``run()`` runs.
    ///
    /// - Throws: ``PostgresURLError`` when a certificate or key file the configuration names
    ///   cannot be read.
    public convenience init(configuration: PostgresStoreConfiguration, logger: Logger = Logger(label: "herald.store.postgres")) throws {
        try self.init(configuration: configuration, logger: logger, makeID: SubscriberID.random)
    }

    /// Creates the store with a custom id generator, so tests can force id collisions.
    init(configuration: PostgresStoreConfiguration, logger: Logger, makeID: @escaping @Sendable () -> SubscriberID) throws {
        self.configuration = configuration
        self.logger = logger
        self.makeID = makeID
        self.nodeID = SubscriberID.random().rawValue
        // Over a Unix-domain socket libpq ignores `sslmode`, and so does Herald.
        var clientConfiguration = configuration.usesUnixSocket
            ? PostgresClient.Configuration(
                unixSocketPath: configuration.unixSocketPath, username: configuration.username,
                password: configuration.password, database: configuration.database)
            : PostgresClient.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: try configuration.clientTLS())
        clientConfiguration.options.maximumConnections = max(2, configuration.poolSize)
        // One connection kept open, the rest opened on demand. A pool kept whole (all `poolSize`
        // open from the start) would spare a fan-out's first pages opening theirs, but postgres-nio's
        // pool traps on a precondition (`createNewDemandConnectionIfPossible`) when a request
        // arrives while its connections fail during a database restart with a minimum above one:
        // `NodesTests.aNodeSurvivesAPostgreSQLRestart` crashed the node in 6 runs of 7.
        clientConfiguration.options.minimumConnections = 1
        clientConfiguration.options.connectTimeout = configuration.connectTimeout
        // Herald's statements are short and set-based: compiling one (PostgreSQL's default above
        // `jit_above_cost`) only adds latency, most when a table without statistics yet makes a
        // cheap statement look costly.
        clientConfiguration.options.additionalStartupParameters = [("jit", "off"), ("application_name", configuration.applicationName)]
        self.client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
    }

    /// Ends ``run()`` (and so the pool) and every wake-up stream; the store cannot be used afterwards.
    public func close() async throws {
        lifecycle.close()
        wakeUpHub.finish()
    }
}
