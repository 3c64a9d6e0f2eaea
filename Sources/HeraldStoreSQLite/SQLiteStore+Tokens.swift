import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// One upsert that skips a taken name, so that checking and inserting cannot interleave with
    /// another creation; a taken digest still fails, as it can only be a bug.
    public func createToken(_ token: APIToken, digest: String) async throws -> Bool {
        let realms = TokenColumns.realms(token.scopes.realms)
        let providers = TokenColumns.list(token.scopes.providers.map { $0.sorted() })
        let events = TokenColumns.list(token.scopes.events)
        return try await pool.write { db -> Bool in
            try db.cachedStatement(sql: """
                INSERT INTO api_tokens (name, digest, realms, providers, events, created, expires, last_used)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (name) DO NOTHING
                """)
                .execute(arguments: [
                    token.name, digest, realms, providers, events, token.createdAt, token.expiresAt, token.lastUsedAt,
                ])
            return db.changesCount == 1
        }
    }

    /// The whole table on a reader: every node's authorizer reloads it about twice a second.
    public func storedTokens() async throws -> [StoredToken] {
        try await pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.tokenColumns) FROM api_tokens ORDER BY name")).map(Self.storedToken)
        }
    }

    /// Deletes the row; the authorizer drops the token at its next read.
    public func revokeToken(named name: String) async throws -> Bool {
        try await pool.write { db -> Bool in
            try db.cachedStatement(sql: "DELETE FROM api_tokens WHERE name = ?").execute(arguments: [name])
            return db.changesCount > 0
        }
    }

    /// One `UPDATE … FROM json_each` for the whole batch; the join drops names no longer stored.
    public func recordTokenUses(_ uses: [String: Int64]) async throws {
        guard !uses.isEmpty else { return }
        let rows = try SQLiteCodec.jsonRows(uses.map { [SQLiteCodec.JSONScalar.text($0.key), .integer($0.value)] })
        try await pool.write { db in
            try db.cachedStatement(sql: """
                UPDATE api_tokens SET last_used = max(coalesce(api_tokens.last_used, 0), u.used)
                FROM (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS used FROM json_each(?)) AS u
                WHERE api_tokens.name = u.name
                """)
                .execute(arguments: [rows])
        }
    }

    /// The columns ``storedToken(_:)`` reads, in its order.
    static let tokenColumns = "name, digest, realms, providers, events, created, expires, last_used"

    /// Reads a row selected as ``tokenColumns``.
    static func storedToken(_ row: Row) throws -> StoredToken {
        let name: String = row[0]
        let digest: String = row[1]
        let realms: String = row[2]
        let providers: String? = row[3]
        let events: String? = row[4]
        let created: Int64 = row[5]
        let expires: Int64? = row[6]
        let lastUsed: Int64? = row[7]
        return try TokenColumns.storedToken(
            name: name, digest: digest, realms: realms, providers: providers, events: events, created: created, expires: expires,
            lastUsed: lastUsed)
    }
}
