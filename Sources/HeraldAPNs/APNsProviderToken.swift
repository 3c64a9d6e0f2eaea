import Foundation
import JWTKit
import Synchronization

/// The provider authentication token (ES256 JWT) of one APNs signing key, shared by every
/// connection and request of a provider.
///
/// APNs refuses tokens older than an hour and tokens renewed more often than every
/// 20 minutes, so one token is minted and reused until it is ``refreshAge`` old;
/// an `ExpiredProviderToken` answer forces a new one, but never sooner than 20 minutes
/// after the previous mint, to stay clear of `TooManyProviderTokenUpdates`.
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
    private let cached = Mutex<Cached?>(nil)

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
        guard let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.issuedAt) < Self.refreshAge else { return nil }
        return cached.authorization
    }

    private func currentCached() async throws -> Cached {
        let now = now()
        if let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.issuedAt) < Self.refreshAge {
            return cached
        }
        return try await mint(at: now)
    }

    /// Replaces the token after APNs called it expired, unless it is younger than ``minimumAge``.
    /// - Returns: whether a new token was minted.
    @discardableResult
    public func refreshAfterRejection() async throws -> Bool {
        let now = now()
        if let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.issuedAt) < Self.minimumAge {
            return false
        }
        _ = try await mint(at: now)
        return true
    }

    private func mint(at date: Date) async throws -> Cached {
        let claims = Claims(iss: teamID, iat: Int(date.timeIntervalSince1970))
        let token = try await keys.sign(claims, kid: JWKIdentifier(string: keyID))
        let minted = Cached(value: token, authorization: "bearer " + token, issuedAt: date)
        cached.withLock { $0 = minted }
        return minted
    }
}
