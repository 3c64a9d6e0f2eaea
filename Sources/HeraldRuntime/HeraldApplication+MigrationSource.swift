import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldStore
import HeraldStoreSQLite

extension HeraldApplication {
    /// Opens the store `herald migrate` copies from: an SQLite database file that exists (opening
    /// a missing one would create it, and migrate an empty database).
    ///
    /// - Throws: ``ConfigurationError`` naming `key` when `database` is not an existing SQLite
    ///   file or cannot be opened.
    public static func openMigrationSource(database: String, key: String = "--from") throws -> any HeraldStore & StoreExport {
        guard case .sqlite(let path) = try DatabaseLocation.parse(database, key: key) else {
            throw ConfigurationError(key: key, "expected an SQLite database (sqlite:PATH): Herald migrates from one machine's database")
        }
        var isDirectory: ObjCBool = false
        guard path != ":memory:", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ConfigurationError(key: key, "no SQLite database at \(path)")
        }
        do {
            return try SQLiteStore(path: path)
        } catch {
            throw ConfigurationError(key: key, "cannot open SQLite database \(path): \(error)")
        }
    }
}
