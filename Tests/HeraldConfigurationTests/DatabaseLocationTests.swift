import HeraldConfiguration
import HeraldCore
import Testing

/// The database URL forms of `interface.md`.
@Suite struct DatabaseLocationTests {
    @Test(arguments: [
        ("sqlite:herald.db", DatabaseLocation.sqlite(path: "herald.db")),
        ("sqlite://herald.db", .sqlite(path: "herald.db")),
        ("sqlite:///var/lib/herald/herald.db", .sqlite(path: "/var/lib/herald/herald.db")),
        ("sqlite:/var/lib/herald.db", .sqlite(path: "/var/lib/herald.db")),
        ("sqlite::memory:", .sqlite(path: ":memory:")),
        ("herald.db", .sqlite(path: "herald.db")),
        ("/data/herald.db", .sqlite(path: "/data/herald.db")),
        ("data:1.db", .sqlite(path: "data:1.db")),
        ("postgres://user:pw@db:5432/herald", .postgres(url: "postgres://user:pw@db:5432/herald")),
        ("postgresql://db/herald?sslmode=require", .postgres(url: "postgresql://db/herald?sslmode=require")),
        ("  POSTGRES://db/herald ", .postgres(url: "POSTGRES://db/herald")),
    ])
    func acceptedForms(_ text: String, _ expected: DatabaseLocation) throws {
        #expect(try DatabaseLocation.parse(text) == expected)
    }

    @Test(arguments: ["", "  ", "sqlite:", "sqlite://", "postgres://", "mysql://db/herald", "redis://localhost:6379/0"])
    func rejectedForms(_ text: String) {
        #expect(throws: ConfigurationError.self) { try DatabaseLocation.parse(text) }
    }

    @Test func errorsNameTheGivenKey() {
        #expect(throws: ConfigurationError(key: "--database", "must not be empty")) {
            try DatabaseLocation.parse("", key: "--database")
        }
        let error = #expect(throws: ConfigurationError.self) { try DatabaseLocation.parse("mysql://x") }
        #expect(error?.key == "server.database")
        #expect(error?.problem.contains("mysql") == true)
    }
}
