import HeraldConfiguration
import HeraldCore
import HeraldStore
import HeraldStorePostgres
import HeraldStoreSQLite
import Logging

extension HeraldApplication {
    /// Opens the store `server.database` names (`sqlite:PATH` or `postgres://…`), as the server
    /// does, for the server and for commands that work on its database (`herald import`).
    ///
    /// A PostgreSQL store connects only while its ``StoreRuntime/run()`` runs, so a caller other
    /// than the server runs it beside its work.
    /// - Throws: ``ConfigurationError`` naming `server.database` when it cannot be opened.
    public static func openStore(database: String, logger: Logger) throws -> any HeraldStore {
        switch try DatabaseLocation.parse(database) {
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path)
            } catch {
                throw ConfigurationError(key: "server.database", "cannot open SQLite database \(path): \(error)")
            }
        case .postgres(let url):
            // Nothing connects here: the store's pool runs in its `run()`, which connects and
            // migrates (waiting for an unreachable database) while the first calls wait for it.
            do {
                return try PostgresStore(configuration: try PostgresStoreConfiguration(url: url), logger: logger.child("herald.store"))
            } catch {
                throw ConfigurationError(key: "server.database", "\(error)")
            }
        }
    }
}
