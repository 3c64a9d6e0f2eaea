import Foundation
import GRDB
import HeraldCore
import HeraldStore
@testable import HeraldStoreConformance
@testable import HeraldStoreSQLite
import Testing

/// Group commit: concurrent writes share transactions, and each answers for itself.
@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    struct Refused: Error, Equatable {
        let n: Int
    }

    @Test("a write that throws is rolled back alone; its batch-mates are committed and answered")
    func failingWriteSparesItsBatch() async throws {
        let store = try SQLiteStore(path: TemporaryDatabases.newPath())
        defer { try? store.close() }
        try await store.pool.write { db in try db.execute(sql: "CREATE TABLE probe (n INTEGER PRIMARY KEY)") }

        // 200 concurrent writes (more than one batch may form, as they arrive): odd ones insert
        // their row and then throw, even ones insert and return their number.
        let answers = await withTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
            for n in 0..<200 {
                group.addTask {
                    do {
                        let value = try await store.groupCommit.write { db -> Int in
                            try db.execute(sql: "INSERT INTO probe (n) VALUES (?)", arguments: [n])
                            if n % 2 == 1 { throw Refused(n: n) }
                            return n
                        }
                        return (n, .success(value))
                    } catch let error as Refused {
                        return (n, .failure(error))
                    } catch {
                        return (n, .failure(Refused(n: -1)))
                    }
                }
            }
            var answers: [Int: Result<Int, Refused>] = [:]
            for await (n, answer) in group { answers[n] = answer }
            return answers
        }

        for n in 0..<200 {
            #expect(answers[n] == (n % 2 == 0 ? .success(n) : .failure(Refused(n: n))), "write \(n)")
        }
        let stored = try await store.pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM probe ORDER BY n") }
        #expect(stored == Array(stride(from: 0, to: 200, by: 2)))
    }

    @Test("a write alone in its transaction that throws leaves nothing behind")
    func failingLoneWriteIsRolledBack() async throws {
        let store = try SQLiteStore(path: TemporaryDatabases.newPath())
        defer { try? store.close() }
        try await store.pool.write { db in try db.execute(sql: "CREATE TABLE probe (n INTEGER PRIMARY KEY)") }

        // One at a time, so each is a batch of its own (written without a savepoint).
        await #expect(throws: Refused(n: 1)) {
            try await store.groupCommit.write { db in
                try db.execute(sql: "INSERT INTO probe (n) VALUES (1)")
                throw Refused(n: 1)
            }
        }
        let two = try await store.groupCommit.write { db -> Int in
            try db.execute(sql: "INSERT INTO probe (n) VALUES (2)")
            return 2
        }
        #expect(two == 2)
        let stored = try await store.pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM probe ORDER BY n") }
        #expect(stored == [2])
    }

    @Test("concurrent registrations of one identity make one subscriber, created once")
    func concurrentRegistrationsOfOneIdentity() async throws {
        let store = try SQLiteStore(path: TemporaryDatabases.newPath())
        defer { try? store.close() }
        let registration = apns(1)

        let results = try await withThrowingTaskGroup(of: (SubscriberID, Bool).self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let (subscriber, created) = try await store.register(registration, now: TestTime.t0)
                    return (subscriber.id, created)
                }
            }
            var results: [(SubscriberID, Bool)] = []
            for try await result in group { results.append(result) }
            return results
        }

        #expect(Set(results.map(\.0)).count == 1)
        #expect(results.filter(\.1).count == 1)
        #expect(try await store.counts().subscribers == 1)
    }
}
