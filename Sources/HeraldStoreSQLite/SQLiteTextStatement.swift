import GRDB
import GRDBSQLite

/// A cached statement with text parameters, executed through SQLite's C interface.
///
/// For loops that run one statement thousands of times in a transaction (a badge increment per
/// subscriber of a page): there GRDB's per-execution work (boxing the arguments, the access and
/// observation bookkeeping) costs about as much as the statement itself. GRDB documents using
/// the C interface on its statements; Herald registers no transaction observers, so nothing
/// misses the executions. Use only inside the `Database` access that created it.
struct SQLiteTextStatement {
    private let statement: Statement
    private let database: Database

    /// Prepares (or takes from the cache) `sql`, whose parameters are all text or NULL.
    init(_ sql: String, in database: Database) throws {
        self.statement = try database.cachedStatement(sql: sql)
        self.database = database
    }

    /// Runs the statement to completion with `values` bound to its parameters in order.
    ///
    /// - Returns: The number of rows it changed.
    func execute(_ values: String?...) throws -> Int {
        // A parameter left unbound would be NULL: a wrong call must not write that.
        precondition(values.count == Int(sqlite3_bind_parameter_count(self.statement.sqliteStatement)), "one value per parameter")
        return try self.bind(values[...], from: 1)
    }

    /// Binds `values` without copying them, each within the scope of its UTF-8 view, and steps
    /// once the last is bound: SQLite reads the bytes only while stepping.
    private func bind(_ values: ArraySlice<String?>, from index: Int32) throws -> Int {
        let handle = self.statement.sqliteStatement
        guard let first = values.first else {
            return try self.step(handle)
        }
        guard var text = first else {
            try self.check(sqlite3_bind_null(handle, index), handle)
            return try self.bind(values.dropFirst(), from: index + 1)
        }
        return try text.withUTF8 { bytes in
            // A nil destructor is SQLITE_STATIC: the bytes outlive the step, which ends before this closure returns.
            let code = if let base = bytes.baseAddress {
                sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
            } else {
                // The literal's pointer lives only during the call: SQLITE_TRANSIENT makes SQLite copy it.
                sqlite3_bind_text(handle, index, "", 0, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
            try self.check(code, handle)
            return try self.bind(values.dropFirst(), from: index + 1)
        }
    }

    private func step(_ handle: OpaquePointer) throws -> Int {
        // Unbind before the borrowed bytes go away, so that no later use of the cached statement sees them.
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW {
            code = sqlite3_step(handle)
        }
        guard code == SQLITE_DONE else {
            throw self.error(code)
        }
        return Int(sqlite3_changes(self.database.sqliteConnection))
    }

    /// Throws for a failed bind, leaving the statement with nothing bound.
    private func check(_ code: CInt, _ handle: OpaquePointer) throws {
        guard code == SQLITE_OK else {
            sqlite3_clear_bindings(handle)
            throw self.error(code)
        }
    }

    private func error(_ code: CInt) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(self.database.sqliteConnection)),
            sql: self.statement.sql)
    }
}
