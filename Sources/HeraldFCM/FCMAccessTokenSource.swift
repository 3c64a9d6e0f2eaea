import HeraldCore
import HeraldWebhook
import Logging

/// The OAuth access token of one provider: an ``AccessTokenCache`` whose fetch signs an assertion
/// and exchanges it at the service account's token endpoint (RFC 7523, providers.md §2.2 steps 2–3).
final class FCMAccessTokenSource: Sendable {
    /// The grant type of RFC 7523.
    private static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    private let cache: AccessTokenCache<OAuthTokenError>

    init(signer: FCMAssertionSigner, endpoint: OAuthTokenEndpoint, logger: Logger) {
        cache = AccessTokenCache { () async throws(OAuthTokenError) -> AccessTokenCache<OAuthTokenError>.Grant in
            do throws(OAuthTokenError) {
                let assertion: String
                do {
                    assertion = try await signer.assertion()
                } catch {
                    throw OAuthTokenError(.signing("\(error)"))
                }
                let grant = try await endpoint.requestGrant([("grant_type", Self.grantType), ("assertion", assertion)])
                logger.debug("obtained an FCM access token", metadata: [
                    "fcm.client": "\(signer.issuer)", "fcm.token_endpoint": "\(endpoint.url)", "fcm.expires_in": "\(grant.expiresIn)",
                ])
                return grant
            } catch {
                logger.warning("FCM access token exchange failed", metadata: [
                    "fcm.client": "\(signer.issuer)", "fcm.token_endpoint": "\(endpoint.url)", "error": "\(error)",
                ])
                throw error
            }
        }
    }

    /// A valid access token, from the cache or from the exchange this call starts or joins.
    func current() async throws(OAuthTokenError) -> String {
        try await cache.current()
    }

    /// Forgets `token` after FCM refused it, unless a newer one has replaced it already.
    func invalidate(_ token: String) {
        cache.invalidate(token)
    }
}
