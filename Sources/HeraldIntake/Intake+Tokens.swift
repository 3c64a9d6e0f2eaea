import Crypto
import HeraldCore
import HeraldStore

extension Intake {
    /// A token as created: the record, and its secret, which is shown this once and never stored.
    public struct CreatedToken: Sendable {
        /// The stored record.
        public var token: APIToken
        /// `hld_` and 43 base64url characters (32 random bytes).
        public var secret: String
        /// The digest the store keeps instead of the secret.
        public var digest: String { Intake.tokenDigest(secret) }
    }

    /// The prefix of every token's secret, so that secret scanners and people recognise one.
    public static let tokenPrefix = "hld_"

    /// Creates an API token: validates its name and scopes (``mintToken(name:scopes:expiresIn:now:providers:)``),
    /// draws its secret and stores its digest.
    ///
    /// - Parameter expiresIn: how long it works; `nil`: until revoked.
    /// - Throws: ``IntakeError/Code/invalidRequest`` for an invalid name, no realm, an empty event
    ///   pattern or a provider that is not configured; ``IntakeError/Code/nameTaken``;
    ///   ``IntakeError/Code/unavailable``.
    public func createToken(name: String, scopes: TokenScopes, expiresIn: Duration? = nil) async throws(IntakeError) -> CreatedToken {
        let created = try Self.mintToken(
            name: name, scopes: scopes, expiresIn: expiresIn, now: clock.nowSeconds(), providers: Set(providers.byName.keys))
        let stored = try await committing("cannot store a token") { try await store.createToken(created.token, digest: created.digest) }
        guard stored else { throw .nameTaken(name) }
        logger.notice("API token created", metadata: ["token": "\(name)", "realms": "\(scopes.realms.map(\.rawValue).sorted())"])
        return created
    }

    /// Validates a token's name and scopes against the configured `providers` and draws its
    /// secret; stores nothing (``createToken(name:scopes:expiresIn:)`` does, and so does
    /// `herald tokens create`, which has no running intake).
    public static func mintToken(
        name: String, scopes: TokenScopes, expiresIn: Duration?, now: Int64, providers: Set<String>
    ) throws(IntakeError) -> CreatedToken {
        guard APIToken.isValidName(name) else {
            throw .invalidRequest("Invalid token name: 1 to \(APIToken.maxNameLength) letters, digits, '-', '_' or '.'")
        }
        guard !scopes.realms.isEmpty else { throw .invalidRequest("A token needs at least one realm") }
        if scopes.providers?.isEmpty == true { throw .invalidRequest("A token's providers may not be empty") }
        if let unknown = scopes.providers?.sorted().first(where: { !providers.contains($0) }) { throw .invalidRequest("Unknown provider \(unknown)") }
        if let events = scopes.events, events.isEmpty || events.contains(where: \.isEmpty) {
            throw .invalidRequest("A token's event patterns may not be empty")
        }
        if let expiresIn, expiresIn <= .zero { throw .invalidRequest("A token's expiry must be in the future") }
        let token = APIToken(name: name, scopes: scopes, createdAt: now, expiresAt: expiresIn.map { now + $0.components.seconds })
        let secret = tokenPrefix + Base64URL.encode(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
        return CreatedToken(token: token, secret: secret)
    }

    /// Every token (never a secret), by name.
    public func tokens() async throws(IntakeError) -> [APIToken] {
        try await committing { try await store.storedTokens().map(\.token) }
    }

    /// Revokes the token `name` on every node.
    /// - Returns: `false` when there is none of that name.
    public func revokeToken(named name: String) async throws(IntakeError) -> Bool {
        let revoked = try await committing("cannot revoke a token") { try await store.revokeToken(named: name) }
        if revoked { logger.notice("API token revoked", metadata: ["token": "\(name)"]) }
        return revoked
    }

    /// The stored form of a secret: SHA-256, base64url. A secret has 256 random bits, so a fast
    /// digest is enough (no password stretching), and a lookup by digest compares no secret bytes.
    public static func tokenDigest(_ secret: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(secret.utf8)))
    }
}
