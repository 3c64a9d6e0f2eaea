import Foundation
import HeraldCore
import HeraldImport
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport
import Logging
import Synchronization
import Testing

/// `StoreMigrator` called directly, between two SQLite stores (the write side is on every backend).
@Suite("StoreMigrator")
struct StoreMigratorTests {
    /// A store of `count` webhook subscribers, each in `all`.
    static func source(at path: String, count: Int) async throws -> SQLiteStore {
        let store = try SQLiteStore(path: path)
        for n in 0..<count {
            let id = try await store.register(SubscriberRegistration(proto: "http", token: "https://example.com/\(n)"), now: 1_700_000_000).subscriber.id
            _ = try await store.subscribe(id, to: EventName("all")!, ignoreMessage: false, now: 1_700_000_000)
        }
        return store
    }

    @Test("one page at a time into another SQLite store, with progress after every page, verified")
    func copiesPageByPage() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let source = try await Self.source(at: directory + "/source.db", count: 5)
        let destination = try SQLiteStore(path: directory + "/copy.db")
        let reports = Mutex<[StoreMigrationProgress]>([])
        let report = try await StoreMigrator(source: source, destination: destination, batchSize: 2, logger: Logger(label: "test"))
            .run { progress in reports.withLock { $0.append(progress) } }
        #expect(report.verified)
        #expect(report.lines[.subscribers]?.written == 5)
        #expect(report.lines[.subscriptions]?.destination == 5)
        // Pages of 2: three of subscribers, one of statistics.
        #expect(reports.withLock { $0.map(\.done) } == [2, 4, 5, 6])
        #expect(try await destination.subscriptions(of: try #require(try await source.exportSubscribers(after: nil, limit: 1).first?.id))?.count == 1)
        try source.close()
        try destination.close()
    }

    @Test("a source that changes while it is copied fails the verification")
    func changingSourceIsReported() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let source = try await Self.source(at: directory + "/source.db", count: 4)
        let destination = try SQLiteStore(path: directory + "/copy.db")
        let changed = Mutex(false)
        let report = try await StoreMigrator(source: source, destination: destination, batchSize: 1, logger: Logger(label: "test"))
            .run { _ in
                guard changed.withLock({ done in defer { done = true }; return !done }) else { return }
                // As a server still using the source would: a registration in the middle of the copy. The
                // progress callback is synchronous, so it waits for the write (on GRDB's own queue).
                let written = DispatchSemaphore(value: 0)
                Task.detached {
                    _ = try? await source.register(SubscriberRegistration(proto: "http", token: "https://example.com/late"), now: 1_700_000_000)
                    written.signal()
                }
                written.wait()
            }
        #expect(report.sourceChanged)
        #expect(!report.verified)
        #expect(report.summary.contains("The source changed while it was copied"))
        try source.close()
        try destination.close()
    }
}
