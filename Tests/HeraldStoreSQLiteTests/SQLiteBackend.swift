import Foundation
import HeraldStoreConformance
import HeraldStoreSQLite
import HeraldTestFixtures

extension StoreBackend {
    /// SQLite on a new file in a per-process temporary folder, removed when the test process exits.
    static let sqlite = StoreBackend(name: "SQLite") {
        try SQLiteStore(path: TemporaryDatabases.newPath())
    }
}

/// Where SQLite test databases live: one folder per test process, removed when it exits.
enum TemporaryDatabases {
    /// The folder, created on first use.
    static let directory = TemporaryDirectory.make()

    /// A path for a new database file.
    static func newPath() -> String {
        directory + "/" + UUID().uuidString + ".sqlite"
    }
}
