import HeraldStoreConformance
import HeraldStorePostgres
import HeraldTestFixtures
import Logging

extension StoreBackend {
    /// PostgreSQL: a new database on the process's shared test server for every store, its pool
    /// running in a task of its own until the check closes the store.
    static let postgres = StoreBackend(name: "PostgreSQL") {
        try await PostgresTestStores.open()
    }
}

/// Opens stores on fresh databases of the shared test server.
enum PostgresTestStores {
    /// A ready store on `database` of `server` (by default a new database of the shared server):
    /// several stores on one database are several nodes.
    static func open(
        on server: PostgresTestServer? = nil, database: String? = nil, configure: (inout PostgresStoreConfiguration) -> Void = { _ in }
    ) async throws -> PostgresStore {
        let server = if let server { server } else { try await PostgresTestServer.shared() }
        let database = if let database { database } else { try await server.createDatabase() }
        var configuration = PostgresStoreConfiguration(
            host: server.host, port: server.port, username: server.username, password: server.password, database: database)
        // Checks run in parallel, each with a store of its own: a small pool each.
        configuration.poolSize = 3
        configure(&configuration)
        var logger = Logger(label: "herald.store.postgres.test")
        logger.logLevel = .warning
        let store = try PostgresStore(configuration: configuration, logger: logger)
        Task { try await store.run() }
        try await store.waitUntilReady()
        return store
    }

    /// Runs `body` with a store on a new database, closing the store afterwards, thrown or not.
    static func with<R>(_ body: (PostgresStore) async throws -> R) async throws -> R {
        let store = try await open()
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }
}
