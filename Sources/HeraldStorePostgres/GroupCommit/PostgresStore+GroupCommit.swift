import PostgresNIO

extension PostgresStore {
    /// What became of a group commit's statement.
    enum BatchOutcome<Row: Sendable>: Sendable {
        /// It committed; its rows.
        case committed([Row])
        /// The server refused it: nothing of it was written, and its writes may run again alone.
        case refused
        /// The connection failed: whether it committed is unknown, so its writes fail.
        case failed(any Error)
    }

    /// Runs the statement of a batch of ``PostgresGroupCommit`` writes, on its own in an
    /// implicit transaction: one round trip and one commit.
    func executeBatch<Statement: PostgresPreparedStatement>(_ statement: Statement) async -> BatchOutcome<Statement.Row>
    where Statement.Row: Sendable {
        let logger = self.logger
        do {
            return .committed(try await withConnection { connection in
                var rows: [Statement.Row] = []
                for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
                return rows
            })
        } catch is PostgresQueryError {
            return .refused
        } catch {
            return .failed(error)
        }
    }
}
