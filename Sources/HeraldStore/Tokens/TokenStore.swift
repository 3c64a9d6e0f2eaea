import HeraldCore

/// API tokens (`herald tokens`, `/tokens`): stored by the digest of their secret, never the secret.
///
/// Every node reads the whole table into its authorizer's cache about twice a second (a handful
/// to a few thousand rows), so a token created or revoked on one node works or stops working on
/// every node within a second, and no request waits for the store to be authorized.
public protocol TokenStore: Sendable {
    /// Stores a new token under `digest`, in one transaction.
    /// - Returns: `false`, storing nothing, when a token of that name exists.
    func createToken(_ token: APIToken, digest: String) async throws -> Bool

    /// Every token with its digest, by name.
    func storedTokens() async throws -> [StoredToken]

    /// Deletes the token `name`: it stops working on every node at their next read.
    /// - Returns: whether there was one.
    func revokeToken(named name: String) async throws -> Bool

    /// Records when tokens were last used (by name, Unix seconds), in one statement; a later time
    /// already stored is kept, and names no longer stored are ignored.
    func recordTokenUses(_ uses: [String: Int64]) async throws
}

/// A token and the digest of its secret, as the store holds them.
public struct StoredToken: Sendable, Equatable {
    /// The token.
    public var token: APIToken
    /// The digest of its secret (``TokenDigest``'s text).
    public var digest: String

    /// Creates a stored token.
    public init(token: APIToken, digest: String) {
        self.token = token
        self.digest = digest
    }
}
