@testable import HeraldStoreConformance
@testable import HeraldStorePostgres
import Logging
import PostgresNIO
import Testing

/// The badge page's test for a strict integer, written without a regular expression, against the
/// regular expression it replaces.
@Suite("PostgreSQL: the strict-integer test of a stored badge")
struct StrictIntegerTests {
    @Test("isStrictInteger agrees with '^-?[0-9]{1,16}$' on every shape of badge, and takes no badge for none")
    func agreesWithTheRegularExpression() async throws {
        let shapes = PublishQueueConformance.badgeShapes + [
            "1", "-1", "0000000000000000", "00000000000000000", "1\n2", "\t1", "1.5", "1e3", "0x1", "-+1", "+-1", "−1", "１",
        ]
        let rows = try await PostgresTestStores.with { store in
            try await store.withConnection { connection in
                var rows: [(shape: String?, expected: Bool, actual: Bool)] = []
                for shape in shapes {
                    // A badge row without a badge (NULL) is no integer either: the page stores "1".
                    var bindings = PostgresBindings()
                    bindings.append(shape)
                    let query = PostgresQuery(
                        unsafeSQL: "SELECT coalesce($1::text ~ '^-?[0-9]{1,16}$', false), coalesce(\(PostgresStore.isStrictInteger("$1::text")), false)",
                        binds: bindings)
                    for try await (expected, actual) in try await connection.query(query, logger: Logger(label: "herald.test")).decode((Bool, Bool).self) {
                        rows.append((shape, expected, actual))
                    }
                }
                return rows
            }
        }
        #expect(rows.count == shapes.count)
        #expect(rows.contains { $0.expected } && rows.contains { !$0.expected }, "both answers occur")
        #expect(rows.contains { $0.shape == nil && !$0.actual }, "no badge is no integer")
        for row in rows {
            #expect(row.actual == row.expected, "\(row.shape.debugDescription)")
        }
    }
}
