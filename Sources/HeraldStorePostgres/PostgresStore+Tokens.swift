import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    /// One upsert that skips a taken name, so that two nodes creating the same name cannot both
    /// succeed; a taken digest still fails, as it can only be a bug.
    public func createToken(_ token: APIToken, digest: String) async throws -> Bool {
        let realms = TokenColumns.realms(token.scopes.realms)
        let providers = TokenColumns.list(token.scopes.providers.map { $0.sorted() })
        let events = TokenColumns.list(token.scopes.events)
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                INSERT INTO api_tokens (name, digest, realms, providers, events, created, expires, last_used)
                VALUES (\(token.name), \(digest), \(realms), \(providers), \(events), \(token.createdAt), \(token.expiresAt),
                        \(token.lastUsedAt))
                ON CONFLICT (name) DO NOTHING
                RETURNING 1
                """, logger: logger).collect().count == 1
        }
    }

    /// The whole table in one statement: every node's authorizer reloads it about twice a second.
    public func storedTokens() async throws -> [StoredToken] {
        let logger = self.logger
        let rows = try await withConnection { connection in
            try await connection.query("SELECT \(unescaped: Self.tokenColumns) FROM api_tokens ORDER BY name", logger: logger)
                .map { try $0.decode(TokenTuple.self) }
        }
        return try rows.map { t in
            try TokenColumns.storedToken(
                name: t.0, digest: t.1, realms: t.2, providers: t.3, events: t.4, created: t.5, expires: t.6, lastUsed: t.7)
        }
    }

    /// Deletes the row; every node's authorizer drops the token at its next read.
    public func revokeToken(named name: String) async throws -> Bool {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("DELETE FROM api_tokens WHERE name = \(name) RETURNING 1", logger: logger).collect().count > 0
        }
    }

    /// One `UPDATE … FROM unnest` for the whole batch; the join drops names no longer stored.
    /// Names go sorted, so that nodes recording the same tokens at once lock their rows in one
    /// order rather than deadlock.
    public func recordTokenUses(_ uses: [String: Int64]) async throws {
        guard !uses.isEmpty else { return }
        let sorted = uses.sorted { $0.key < $1.key }
        let names = sorted.map { $0.key }
        let times = sorted.map { $0.value }
        let logger = self.logger
        try await withConnection { connection in
            _ = try await connection.query("""
                UPDATE api_tokens AS t SET last_used = GREATEST(COALESCE(t.last_used, 0), u.used)
                FROM unnest(\(names)::text[], \(times)::bigint[]) AS u(name, used)
                WHERE t.name = u.name
                """, logger: logger).collect()
        }
    }

    /// The columns ``TokenTuple`` holds, in its order.
    static let tokenColumns = "name, digest, realms, providers, events, created, expires, last_used"

    /// The raw columns of ``tokenColumns``.
    typealias TokenTuple = (String, String, String, String?, String?, Int64, Int64?, Int64?)
}
