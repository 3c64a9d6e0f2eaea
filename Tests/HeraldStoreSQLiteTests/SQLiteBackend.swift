import Foundation
import HeraldStoreConformance
import HeraldStoreSQLite

extension StoreBackend {
    /// SQLite on a new file in a per-process temporary folder, removed when the test process exits.
    static let sqlite = StoreBackend(name: "SQLite") {
        try SQLiteStore(path: TemporaryDatabases.newPath())
    }
}

/// Where SQLite test databases live: one folder per test process.
enum TemporaryDatabases {
    /// The folder, created (and scheduled for removal at exit) on first use.
    static let directory: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("herald-store-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(atPath: TemporaryDatabases.directory)
        }
        return path
    }()

    /// A path for a new database file.
    static func newPath() -> String {
        directory + "/" + UUID().uuidString + ".sqlite"
    }
}
