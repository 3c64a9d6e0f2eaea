import Foundation
import HeraldCore
import HeraldStore
import Testing

/// A store implementation the conformance suite runs against.
///
/// Every suite test takes one as its argument and calls `make` for a fresh, empty
/// store of its own, so tests run in parallel without seeing each other's rows.
/// A new backend (PostgreSQL) is one more entry in ``all``; the suites do not change.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    /// Shown in test names: `register is idempotent (SQLite)`.
    let name: String
    /// Opens a fresh, empty store.
    let make: @Sendable () async throws -> any HeraldStore

    var testDescription: String { name }

    /// Every backend the suite runs against.
    static let all: [StoreBackend] = [.sqlite]

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
