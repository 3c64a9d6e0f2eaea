import HeraldCore
import HeraldIntake
import HeraldStore
import NIOConcurrencyHelpers

/// The API tokens requests are checked against: the store's table as last read (by
/// ``TokenRefreshService``, twice a second), keyed by the digest of each secret, so that checking
/// a request costs one hash and one dictionary lookup and never waits for the store.
///
/// A presented secret is hashed before it is looked up, so the lookup compares digests, not the
/// secret: how many leading characters of a wrong secret match a real one changes nothing in
/// what is computed. Uses are gathered here and written by the refresh service in one statement.
public final class TokenCache: Sendable {
    private struct State {
        /// Whether the store has been read once: until then nothing is known, and requests that
        /// depend on tokens are answered 503 rather than let through.
        var loaded = false
        var byDigest: [String: APIToken] = [:]
        /// When each token was last used since the last write (by name).
        var uses: [String: Int64] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Creates an empty cache.
    public init() {}

    /// What the cache knows of the tokens.
    public enum Contents: Sendable, Equatable {
        /// The store has not been read yet (it is starting).
        case unknown
        /// There are no tokens.
        case none
        /// There are tokens: a request without credentials is refused.
        case some
    }

    /// What the cache knows of the tokens.
    public var contents: Contents {
        state.withLockedValue { state in
            guard state.loaded else { return .unknown }
            return state.byDigest.isEmpty ? .none : .some
        }
    }

    /// Whether the store has been read at least once.
    public var isLoaded: Bool { state.withLockedValue { $0.loaded } }

    /// Replaces the cache with what the store holds now.
    public func replace(with tokens: [StoredToken]) {
        let byDigest = Dictionary(tokens.map { ($0.digest, $0.token) }, uniquingKeysWith: { first, _ in first })
        state.withLockedValue { state in
            state.byDigest = byDigest
            state.loaded = true
        }
    }

    /// Adds a token created on this node at once, before the next read.
    public func insert(_ token: APIToken, digest: String) {
        state.withLockedValue { $0.byDigest[digest] = token }
    }

    /// Removes one token at once, before the next read (a revocation on this node).
    public func remove(named name: String) {
        state.withLockedValue { state in state.byDigest = state.byDigest.filter { $0.value.name != name } }
    }

    /// What a presented secret is.
    public enum Lookup: Sendable, Equatable {
        /// A token that works: its record.
        case valid(APIToken)
        /// No token that works: unknown, revoked or expired (which, is not said).
        case invalid
        /// The store has not been read yet.
        case unknown
    }

    /// The token whose secret is `secret`, if it exists and has not expired at `now`; its use is noted.
    public func token(forSecret secret: String, now: Int64) -> Lookup {
        // Secrets are 47 characters; anything far longer is no token, and not worth hashing.
        guard secret.utf8.count <= 256 else { return .invalid }
        let digest = Intake.tokenDigest(secret)
        return state.withLockedValue { state -> Lookup in
            guard state.loaded else { return .unknown }
            guard let token = state.byDigest[digest], !token.isExpired(at: now) else { return .invalid }
            state.uses[token.name] = now
            return .valid(token)
        }
    }

    /// The uses noted since the last call, emptied.
    func takeUses() -> [String: Int64] {
        state.withLockedValue { state in
            defer { state.uses = [:] }
            return state.uses
        }
    }
}
