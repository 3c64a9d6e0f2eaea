import HeraldCore
import HeraldStore
import Testing

/// API tokens (`TokenStore`): stored by name with the digest of their secret, listed whole for
/// every node's authorizer, revoked by name, and their last use recorded in batches.
public enum TokenConformance {
    /// An app's token: several realms, providers given unsorted, events in an order of their own.
    static let app = APIToken(
        name: "chat-app",
        scopes: TokenScopes(realms: [.publish, .listen], providers: ["fcm-a", "apns-a"], events: ["news", "chat.*"]),
        createdAt: TestTime.t0, expiresAt: TestTime.t0 + 86_400)
    /// An operator's token: one realm, every provider and event. Its capital sorts it before
    /// `chat-app` in byte order only.
    static let operatorToken = APIToken(name: "Ops", scopes: TokenScopes(realms: [.admin]), createdAt: TestTime.t0 + 1)

    /// tokens round-trip with their scopes and digests, listed by name in byte order; a taken name is refused and left unchanged
    public static func tokensRoundTrip(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.storedTokens().isEmpty)
            #expect(try await store.createToken(app, digest: "digest-app"))
            #expect(try await store.createToken(operatorToken, digest: "digest-ops"))
            let expected = [StoredToken(token: operatorToken, digest: "digest-ops"), StoredToken(token: app, digest: "digest-app")]
            #expect(try await store.storedTokens() == expected)

            let taken = APIToken(name: "Ops", scopes: TokenScopes(realms: [.register], events: ["x"]), createdAt: TestTime.t0 + 2)
            #expect(try await !store.createToken(taken, digest: "digest-other"))
            #expect(try await store.storedTokens() == expected, "the existing token is unchanged and nothing was added")
        }
    }

    /// a revoked token is gone, and its name is free again; revoking it again or an unknown name finds nothing
    public static func revocation(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.createToken(app, digest: "digest-app"))
            #expect(try await store.createToken(operatorToken, digest: "digest-ops"))
            #expect(try await store.revokeToken(named: "chat-app"))
            #expect(try await !store.revokeToken(named: "chat-app"), "already revoked")
            #expect(try await !store.revokeToken(named: "unknown"))
            #expect(try await store.storedTokens() == [StoredToken(token: operatorToken, digest: "digest-ops")])
            #expect(try await store.createToken(app, digest: "digest-app-2"))
            #expect(try await store.storedTokens().map(\.digest) == ["digest-ops", "digest-app-2"])
        }
    }

    /// recorded uses keep the later time and touch nothing else; unknown names are ignored and an empty record is a no-op
    public static func lastUse(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.createToken(app, digest: "digest-app"))
            #expect(try await store.createToken(operatorToken, digest: "digest-ops"))
            try await store.recordTokenUses([:])
            try await expectLastUses(store, app: nil, ops: nil, "an empty record")
            try await store.recordTokenUses(["chat-app": TestTime.t0 + 10, "unknown": TestTime.t0 + 10])
            try await expectLastUses(store, app: TestTime.t0 + 10, ops: nil, "a first use, beside an unknown name")
            try await store.recordTokenUses(["chat-app": TestTime.t0 + 5, "Ops": TestTime.t0 + 7])
            try await expectLastUses(store, app: TestTime.t0 + 10, ops: TestTime.t0 + 7, "an earlier time keeps the later one")
            try await store.recordTokenUses(["chat-app": TestTime.t0 + 20])
            try await expectLastUses(store, app: TestTime.t0 + 20, ops: TestTime.t0 + 7, "a later time replaces it")
            try await store.recordTokenUses([:])
            try await expectLastUses(store, app: TestTime.t0 + 20, ops: TestTime.t0 + 7, "an empty record changes nothing")
        }
    }

    /// Expects both tokens of ``lastUse(_:)`` unchanged but for their last uses.
    static func expectLastUses(
        _ store: any HeraldStore, app appUse: Int64?, ops opsUse: Int64?, _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var usedApp = app
        usedApp.lastUsedAt = appUse
        var usedOps = operatorToken
        usedOps.lastUsedAt = opsUse
        let expected = [StoredToken(token: usedOps, digest: "digest-ops"), StoredToken(token: usedApp, digest: "digest-app")]
        #expect(try await store.storedTokens() == expected, comment, sourceLocation: sourceLocation)
    }
}
