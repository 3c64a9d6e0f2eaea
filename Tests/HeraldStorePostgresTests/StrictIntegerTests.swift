@testable import HeraldStoreConformance
@testable import HeraldStorePostgres
import Logging
import PostgresNIO
import Testing

/// The badge page's test for a strict integer, written without a regular expression, against the
/// regular expression it replaces.
@Suite("PostgreSQL: the strict-integer test of a stored badge")
struct StrictIntegerTests {
    @Test("isStrictInteger agrees with '^-?[0-9]{1,16}$' on every shape of badge")
    func agreesWithTheRegularExpression() async throws {
        let shapes = PublishQueueConformance.badgeShapes.compactMap { $0 } + [
            "1", "-1", "0000000000000000", "00000000000000000", "1\n2", "\t1", "1.5", "1e3", "0x1", "-+1", "+-1", "−1", "１",
        ]
        let rows = try await PostgresTestStores.with { store in
            try await store.withConnection { connection in
                var rows: [(String, Bool, Bool)] = []
                for shape in shapes {
                    let query = PostgresQuery(
                        unsafeSQL: "SELECT $1::text ~ '^-?[0-9]{1,16}$', \(PostgresStore.isStrictInteger("$1::text"))",
                        binds: { var b = PostgresBindings(); b.append(shape); return b }())
                    for try await (expected, actual) in try await connection.query(query, logger: Logger(label: "herald.test")).decode((Bool, Bool).self) {
                        rows.append((shape, expected, actual))
                    }
                }
                return rows
            }
        }
        #expect(rows.count == shapes.count)
        #expect(rows.contains { $0.1 } && rows.contains { !$0.1 }, "both answers occur")
        for (shape, expected, actual) in rows {
            #expect(actual == expected, "\(shape.debugDescription)")
        }
        #expect(try await nullIsNotAnInteger())
    }

    /// A badge row with no badge is no integer either (the page then stores "1").
    private func nullIsNotAnInteger() async throws -> Bool {
        try await PostgresTestStores.with { store in
            try await store.withConnection { connection in
                let query = PostgresQuery(unsafeSQL: "SELECT coalesce(\(PostgresStore.isStrictInteger("NULL::text")), false)")
                var answer = true
                for try await value in try await connection.query(query, logger: Logger(label: "herald.test")).decode(Bool.self) {
                    answer = value
                }
                return !answer
            }
        }
    }
}
