import HeraldStore
import PostgresNIO

extension PostgresStore {
    public func holdLease(_ name: String, owner: String, duration: Duration) async throws -> Bool {
        // The database's time (the store's clock), so every node agrees on when the lease ends.
        let now = clock.nowMillis()
        let (seconds, attoseconds) = duration.components
        let expires = now + seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let logger = self.logger
        return try await withConnection { connection in
            // The update applies only to the owner's own or an expired lease: no row comes back
            // when another owner holds it.
            try await !connection.query("""
                INSERT INTO front_end_leases (name, owner, expires) VALUES (\(name), \(owner), \(expires))
                ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
                WHERE front_end_leases.owner = excluded.owner OR front_end_leases.expires <= \(now)
                RETURNING owner
                """, logger: logger).collect().isEmpty
        }
    }

    public func releaseLease(_ name: String, owner: String) async throws {
        let logger = self.logger
        _ = try await withConnection { connection in
            try await connection.query("DELETE FROM front_end_leases WHERE name = \(name) AND owner = \(owner)", logger: logger)
        }
    }

    /// Nodes share the database, so each process is an owner of its own.
    public var restartStableOwner: String? { nil }
}
