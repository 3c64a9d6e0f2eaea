import Foundation
import Logging
import HeraldCore

/// The OAuth access token of one provider: an ``AccessTokenCache`` whose fetch signs an assertion
/// and exchanges it at the service account's token endpoint.
final class FCMAccessTokenSource: Sendable {
    private let cache: AccessTokenCache<FCMTokenError>

    init(signer: FCMAssertionSigner, exchanger: FCMTokenExchanger, logger: Logger) {
        cache = AccessTokenCache { () async throws(FCMTokenError) -> AccessTokenCache<FCMTokenError>.Grant in
            do throws(FCMTokenError) {
                let assertion: String
                do {
                    assertion = try await signer.assertion()
                } catch {
                    throw FCMTokenError(.signing("\(error)"))
                }
                let grant = try await exchanger.exchange(assertion: assertion)
                logger.debug("obtained an FCM access token", metadata: [
                    "fcm.client": "\(signer.issuer)", "fcm.token_endpoint": "\(exchanger.url)", "fcm.expires_in": "\(grant.expiresIn)",
                ])
                return AccessTokenCache.Grant(token: grant.accessToken, expiresIn: grant.expiresIn)
            } catch {
                logger.warning("FCM access token exchange failed", metadata: [
                    "fcm.client": "\(signer.issuer)", "fcm.token_endpoint": "\(exchanger.url)", "error": "\(error)",
                ])
                throw error
            }
        }
    }

    /// A valid access token, from the cache or from the exchange this call starts or joins.
    func current() async throws(FCMTokenError) -> String {
        try await cache.current()
    }

    /// Forgets `token` after FCM refused it, unless a newer one has replaced it already.
    func invalidate(_ token: String) {
        cache.invalidate(token)
    }
}
