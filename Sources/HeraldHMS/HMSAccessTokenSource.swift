import AsyncHTTPClient
import HeraldCore
import HeraldWebhook
import Logging

/// The OAuth 2.0 client-credentials access token of one `hms` provider: an ``AccessTokenCache``
/// whose fetch posts the app's credentials to the token endpoint.
final class HMSAccessTokenSource: Sendable {
    /// The token endpoint's URL.
    let url: String
    private let cache: AccessTokenCache<OAuthTokenError>

    /// Creates a source asking `url` for tokens of the app `clientID` with `clientSecret`, through `client`.
    init(clientID: String, clientSecret: String, url: String, client: HTTPClient, timeout: Duration, logger: Logger) {
        self.url = url
        let endpoint = OAuthTokenEndpoint(client: client, url: url, timeout: timeout)
        cache = AccessTokenCache { () async throws(OAuthTokenError) -> AccessTokenCache<OAuthTokenError>.Grant in
            do throws(OAuthTokenError) {
                let grant = try await endpoint.requestGrant([
                    ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret),
                ])
                logger.debug("obtained an HMS access token", metadata: [
                    "hms.client_id": "\(clientID)", "hms.token_endpoint": "\(url)", "hms.expires_in": "\(grant.expiresIn)",
                ])
                return grant
            } catch {
                logger.warning("HMS access token request failed", metadata: [
                    "hms.client_id": "\(clientID)", "hms.token_endpoint": "\(url)", "error": "\(error)",
                ])
                throw error
            }
        }
    }

    /// A valid access token, from the cache or from the request this call starts or joins.
    func current() async throws(OAuthTokenError) -> String {
        try await cache.current()
    }

    /// Forgets `token` after Push Kit refused it, unless a newer one has replaced it already.
    func invalidate(_ token: String) {
        cache.invalidate(token)
    }
}
