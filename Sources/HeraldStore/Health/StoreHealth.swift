import HeraldCore

/// Whether the store can be used.
public protocol StoreHealth: Sendable {
    /// Runs a trivial query; throws when the database cannot be used.
    func ping() async throws

    /// Row counts of every table that the API can empty.
    func counts() async throws -> StoreCounts

    /// Closes connections.
    func close() async throws
}
