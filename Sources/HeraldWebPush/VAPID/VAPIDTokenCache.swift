import Foundation
import JWTKit
import Synchronization

/// Signs the VAPID `Authorization` header per push-service origin and reuses it (pushd-api.md §10.4).
///
/// A token is valid for ``lifetime`` (12 hours, half of RFC 8292's 24-hour ceiling, so clock differences never make
/// it too far ahead) and is replaced ``renewalMargin`` before it expires; a provider sending millions of
/// notifications to one service signs about twice a day, never per request.
public final class VAPIDTokenCache: Sendable {
    /// How far ahead of signing `exp` lies.
    public static let lifetime: TimeInterval = 12 * 3600
    /// How long before `exp` a token stops being reused.
    public static let renewalMargin: TimeInterval = 3600
    /// Origins remembered at most; beyond, the expired entries and then all are dropped. Endpoints come from
    /// registrations, so an unbounded map could be grown by anyone who can register.
    static let maximumOrigins = 1024

    private struct Entry {
        var header: String
        var expiresAt: Date
    }

    /// The key's public half, base64url: the `k` parameter.
    public let publicKey: String
    /// The `sub` claim.
    public let subject: String

    private let keys: JWTKeyCollection
    private let now: @Sendable () -> Date
    private let entries = Mutex<[String: Entry]>([:])

    /// Creates a cache signing with `key` for the contact `subject`; `now` is the clock (tests move it).
    public init(key: VAPIDKey, subject: String, now: @escaping @Sendable () -> Date = { Date() }) async throws {
        self.keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: key.privateKey))
        self.publicKey = key.publicKeyBase64URL
        self.subject = subject
        self.now = now
    }

    /// The `Authorization` header value for a push resource on `origin`: `vapid t=<JWT>, k=<public key>`.
    public func authorization(forOrigin origin: String) async throws -> String {
        let now = now()
        if let entry = entries.withLock({ $0[origin] }), now < entry.expiresAt.addingTimeInterval(-Self.renewalMargin) {
            return entry.header
        }
        // Whole seconds: `exp` is an integer, and rounding down keeps it within the lifetime.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Self.lifetime).rounded(.down))
        let claims = VAPIDClaims(aud: origin, exp: Int64(expiresAt.timeIntervalSince1970), sub: subject)
        let token = try await keys.sign(claims)
        let header = "vapid t=\(token), k=\(publicKey)"
        entries.withLock { entries in
            if entries.count >= Self.maximumOrigins {
                entries = entries.filter { $0.value.expiresAt > now }
                if entries.count >= Self.maximumOrigins { entries.removeAll() }
            }
            entries[origin] = Entry(header: header, expiresAt: expiresAt)
        }
        return header
    }
}
