import HeraldStore
import Testing

/// A store implementation the conformance checks run against: a name and a factory.
///
/// Every check takes one and calls ``make`` for a fresh, empty store of its own, so checks
/// run in parallel without seeing each other's rows. A backend's test target defines its
/// backend once (`StoreBackend(name: "SQLite") { try SQLiteStore(path: …) }`) and calls
/// every check with it from its own thin `@Test` functions.
public struct StoreBackend: Sendable, CustomTestStringConvertible {
    /// The backend's name (`SQLite`), shown when a backend is a test argument.
    public let name: String
    /// Opens a fresh, empty store.
    public let make: @Sendable () async throws -> any HeraldStore

    /// Creates a backend from its name and a factory of fresh, empty stores.
    public init(name: String, make: @escaping @Sendable () async throws -> any HeraldStore) {
        self.name = name
        self.make = make
    }

    /// The backend's name.
    public var testDescription: String { name }
}
