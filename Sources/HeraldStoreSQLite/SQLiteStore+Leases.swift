import GRDB
import HeraldStore

extension SQLiteStore {
    public func holdLease(_ name: String, owner: String, duration: Duration) async throws -> Bool {
        let now = clock.nowMillis()
        let (seconds, attoseconds) = duration.components
        let expires = now + seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return try await pool.write { db in
            // An upsert whose update applies only to the owner's own or an expired lease: no row
            // comes back when another owner holds it.
            try String.fetchOne(
                db.cachedStatement(sql: """
                    INSERT INTO front_end_leases (name, owner, expires) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
                    WHERE front_end_leases.owner = excluded.owner OR front_end_leases.expires <= ?
                    RETURNING owner
                    """),
                arguments: [name, owner, expires, now]) != nil
        }
    }

    public func releaseLease(_ name: String, owner: String) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM front_end_leases WHERE name = ? AND owner = ?").execute(arguments: [name, owner])
        }
    }

    /// One node owns the file, so a process may take over the leases its predecessor left.
    public var restartStableOwner: String? { "local" }
}
