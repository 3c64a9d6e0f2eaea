import HeraldStore
import Logging
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Runs `body` on a pooled connection once the store is ready.
    ///
    /// Waiting for a connection is bounded by ``PostgresStoreConfiguration/acquireTimeout``: while
    /// the database is away the pool cannot hand one out, and a caller (the intake) must answer
    /// 503 rather than hang. Once a connection is held, the statement runs as long as it needs.
    func withConnection<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        if !lifecycle.isReady {
            try await lifecycle.waitUntilReady(timeout: configuration.readyTimeout)
        }
        let acquired = AcquiredFlag()
        let client = self.client
        let timeout = configuration.acquireTimeout
        do {
            return try await withThrowingTaskGroup(of: R?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        acquired.set()
                        return try await body(connection)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    guard acquired.isSet else { throw StoreError.unavailable("no database connection within \(timeout)") }
                    return nil
                }
                while let result = try await group.next() {
                    if let result {
                        group.cancelAll()
                        return result
                    }
                }
                throw CancellationError()
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`, rolled back when it throws).
    ///
    /// - Parameter settings: A `SET LOCAL` statement (or `set_config(…, true)` calls) run first,
    ///   for planner settings that hold for this transaction only (``audiencePagePlan``,
    ///   ``badgePageCosts``, ``badgePagePlan``).
    func withTransaction<R: Sendable>(
        settings: String? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection in
                if let settings { try await connection.query(PostgresQuery(unsafeSQL: settings), logger: logger) }
                return try await body(connection)
            }
        }
    }

    /// The store's form of a failure: connection trouble becomes ``StoreError/unavailable``, a
    /// statement the server refused a ``PostgresQueryError`` with its SQLSTATE and message.
    static func storeError(_ error: any Error) -> any Error {
        switch error {
        case is StoreError, is CancellationError, is PostgresQueryError:
            return error
        case let transaction as PostgresTransactionError:
            // The closure's own error, else the failure to begin/commit/roll back.
            if let closure = transaction.closureError { return storeError(closure) }
            if let begin = transaction.beginError { return storeError(begin) }
            if let commit = transaction.commitError { return storeError(commit) }
            if let rollback = transaction.rollbackError { return storeError(rollback) }
            return StoreError.unavailable("transaction failed")
        case let error as PSQLError:
            guard error.code == .server, let state = error.serverInfo?[.sqlState] else {
                return StoreError.unavailable("database connection: \(error.code)")
            }
            // Connection exceptions, shutdowns and too many connections: the database is away, not the statement wrong.
            if state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300" {
                return StoreError.unavailable("database unavailable: SQLSTATE \(state)")
            }
            return PostgresQueryError(sqlState: state, message: error.serverInfo?[.message] ?? "", detail: error.serverInfo?[.detail])
        default:
            // The pool's own errors (shut down, request cancelled) and transport errors.
            return StoreError.unavailable("database connection: \(String(describing: type(of: error)))")
        }
    }
}

/// Whether a pooled connection was handed over yet; set once, read by the acquire timer.
final class AcquiredFlag: Sendable {
    private let value = Atomic(false)

    func set() { value.store(true, ordering: .releasing) }

    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Whether the notification listener is subscribed; set and cleared by the listener only.
final class ListeningFlag: Sendable {
    private let state = Atomic(false)

    func set(_ value: Bool) { state.store(value, ordering: .releasing) }

    var value: Bool { state.load(ordering: .acquiring) }
}

/// A statement the server refused (not a connection failure): its SQLSTATE and message.
public struct PostgresQueryError: Error, CustomStringConvertible {
    /// The five-character SQLSTATE code.
    public let sqlState: String
    /// The server's primary message.
    public let message: String
    /// The server's detail line, if any.
    public let detail: String?

    /// The SQLSTATE and the messages.
    public var description: String {
        "PostgreSQL \(sqlState): \(message)" + (detail.map { " (\($0))" } ?? "")
    }
}
