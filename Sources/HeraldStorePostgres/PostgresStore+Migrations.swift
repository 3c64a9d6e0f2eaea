import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Brings the schema up to date in one transaction under an advisory lock.
    ///
    /// `pg_advisory_xact_lock` rather than the session-level `pg_advisory_lock`: it is released by
    /// the commit or the rollback itself, so a node that dies or loses its connection mid-migration
    /// never leaves the lock held, and PostgreSQL's transactional DDL makes a failed migration
    /// leave no half-made table. The other nodes wait on the lock, then find every version applied.
    func migrate(on connection: PostgresConnection) async throws {
        let logger = self.logger
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.advisoryLockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS herald_schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM herald_schema_migrations", logger: logger)
                .decode(Int.self)
            {
                applied.insert(version)
            }
            if let newest = applied.max(), let known = PostgresSchema.migrations.last?.version, newest > known {
                throw StoreError.unsupportedDatabase("the database's schema (version \(newest)) is newer than this Herald (\(known))")
            }
            for migration in PostgresSchema.migrations where !applied.contains(migration.version) {
                logger.info("migrating the PostgreSQL schema", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO herald_schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
            }
        }
    }
}
