import Foundation
import JWTKit
import Synchronization

/// The provider authentication token (ES256 JWT) of one APNs signing key, shared by every
/// connection and request of a provider.
///
/// APNs refuses tokens older than an hour and tokens renewed more often than every
/// 20 minutes, so one token is minted and reused until it is ``refreshAge`` old;
/// an `ExpiredProviderToken` answer forces a new one, but never sooner than 20 minutes
/// after the previous mint, to stay clear of `TooManyProviderTokenUpdates`. Callers that need a
/// token while one is being minted wait for that one: ES256 signatures differ even for one `iat`,
/// so a burst of first requests minting side by side would each present a new token.
public final class APNsProviderToken: Sendable {
    /// Age at which a token is replaced: between APNs's 20-minute floor and 60-minute ceiling.
    public static let refreshAge: TimeInterval = 50 * 60
    /// APNs's floor between two tokens of one key.
    public static let minimumAge: TimeInterval = 20 * 60

    private struct Claims: JWTPayload {
        let iss: String
        let iat: Int

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private struct Cached {
        var value: String
        /// `bearer <value>`, built once per token rather than once per request.
        var authorization: String
        var issuedAt: Date
    }

    private let keys: JWTKeyCollection
    private let keyID: String
    private let teamID: String
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var cached: Cached?
        /// The mint under way, which every caller needing a new token awaits.
        var minting: Task<Cached, any Error>?
    }

    private enum Next {
        case ready(Cached)
        case wait(Task<Cached, any Error>)
    }

    /// Creates a token source from the `.p8` key's PEM text.
    public init(keyPEM: String, keyID: String, teamID: String, now: @escaping @Sendable () -> Date = { Date() }) async throws {
        let key = try ES256PrivateKey(pem: keyPEM)
        self.keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        self.keyID = keyID
        self.teamID = teamID
        self.now = now
    }

    /// The current `bearer` token, minting one when there is none or it is ``refreshAge`` old.
    public func current() async throws -> String {
        try await currentCached().value
    }

    /// The `authorization` field value of the current token: `bearer <token>`.
    public func authorization() async throws -> String {
        try await currentCached().authorization
    }

    /// The `authorization` value of the current token if one is cached and young enough, without minting.
    public func cachedAuthorization() -> String? {
        let now = now()
        guard let cached = state.withLock({ $0.cached }), now.timeIntervalSince(cached.issuedAt) < Self.refreshAge else { return nil }
        return cached.authorization
    }

    private func currentCached() async throws -> Cached {
        let now = now()
        let next = state.withLock { state -> Next in
            if let cached = state.cached, now.timeIntervalSince(cached.issuedAt) < Self.refreshAge {
                return .ready(cached)
            }
            return .wait(startMint(at: now, in: &state))
        }
        switch next {
        case .ready(let cached): return cached
        case .wait(let minting): return try await minting.value
        }
    }

    /// Replaces the token after APNs called it expired, unless it is younger than ``minimumAge``.
    /// - Returns: whether a new token was minted.
    @discardableResult
    public func refreshAfterRejection() async throws -> Bool {
        let now = now()
        let minting = state.withLock { state -> Task<Cached, any Error>? in
            if let cached = state.cached, now.timeIntervalSince(cached.issuedAt) < Self.minimumAge {
                return nil
            }
            return startMint(at: now, in: &state)
        }
        guard let minting else { return false }
        _ = try await minting.value
        return true
    }

    /// The mint under way, or a new one dated `date`; called with the state locked, so that a
    /// second caller finds the first one's task.
    private func startMint(at date: Date, in state: inout State) -> Task<Cached, any Error> {
        if let minting = state.minting { return minting }
        // The task records its token under the lock, which is held until `minting` is set here.
        let minting = Task<Cached, any Error> {
            do {
                let minted = try await mint(at: date)
                self.state.withLock { $0.cached = minted; $0.minting = nil }
                return minted
            } catch {
                self.state.withLock { $0.minting = nil }
                throw error
            }
        }
        state.minting = minting
        return minting
    }

    private func mint(at date: Date) async throws -> Cached {
        let claims = Claims(iss: teamID, iat: Int(date.timeIntervalSince1970))
        let token = try await keys.sign(claims, kid: JWKIdentifier(string: keyID))
        return Cached(value: token, authorization: "bearer " + token, issuedAt: date)
    }
}
