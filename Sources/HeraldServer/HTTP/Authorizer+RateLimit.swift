import HeraldCore
import HeraldIntake
import NIOCore

extension Authorizer {
    /// Takes a token from `client`'s bucket in `realm`.
    /// - Throws: ``APIError/tooManyRequests(retryAfterSeconds:)`` when the client is over its limit.
    func admit(_ realm: Realm, client: RateLimitClient) throws(APIError) {
        if case .refused(let seconds) = rateLimiter.admit(realm, client: client) {
            throw .tooManyRequests(retryAfterSeconds: seconds)
        }
    }

    /// Takes a token for a credential-less message (a UDP datagram) from `address`'s bucket in `realm`.
    /// - Returns: whether it is within the limit; over it, the message is to be dropped.
    public func admitsWithoutCredentials(realm: Realm, address: SocketAddress?) -> Bool {
        rateLimiter.admit(realm, client: RateLimitClient(address: address?.ipAddress)).isAdmitted
    }
}
