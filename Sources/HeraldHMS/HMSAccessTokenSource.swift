import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore

/// The OAuth 2.0 client-credentials access token of one `hms` provider: an ``AccessTokenCache``
/// whose fetch posts the app's credentials to the token endpoint.
final class HMSAccessTokenSource: Sendable {
    /// Token answers are small; anything longer is not one.
    private static let maximumResponseBytes = 64 * 1024

    /// The token endpoint's URL.
    let url: String
    private let cache: AccessTokenCache<HMSTokenError>

    /// Creates a source asking `url` for tokens of the app `clientID` with `clientSecret`, through `client`.
    init(clientID: String, clientSecret: String, url: String, client: HTTPClient, timeout: Duration, logger: Logger) {
        self.url = url
        let request = Self.grantRequest(clientID: clientID, clientSecret: clientSecret, url: url, client: client, timeout: timeout)
        cache = AccessTokenCache { () async throws(HMSTokenError) -> AccessTokenCache<HMSTokenError>.Grant in
            do throws(HMSTokenError) {
                let grant = try await request()
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
    func current() async throws(HMSTokenError) -> String {
        try await cache.current()
    }

    /// Forgets `token` after Push Kit refused it, unless a newer one has replaced it already.
    func invalidate(_ token: String) {
        cache.invalidate(token)
    }

    /// The request for a grant, as a closure the cache calls.
    private static func grantRequest(
        clientID: String, clientSecret: String, url: String, client: HTTPClient, timeout: Duration
    ) -> @Sendable () async throws(HMSTokenError) -> AccessTokenCache<HMSTokenError>.Grant {
        { () async throws(HMSTokenError) in
            try await requestGrant(clientID: clientID, clientSecret: clientSecret, url: url, client: client, timeout: timeout)
        }
    }

    /// Posts the client credentials (`grant_type=client_credentials&client_id=…&client_secret=…`) and reads the
    /// grant.
    private static func requestGrant(
        clientID: String, clientSecret: String, url: String, client: HTTPClient, timeout: Duration
    ) async throws(HMSTokenError) -> AccessTokenCache<HMSTokenError>.Grant {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        let form = [
            ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret),
        ].map { "\($0.0)=\(formEncode($0.1))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        let status: Int
        let retryAfter: String?
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "retry-after")
            body = try await response.body.collect(upTo: Self.maximumResponseBytes)
        } catch {
            // The error's text never holds the form, so the secret cannot leak through it.
            throw HMSTokenError(.transport(OutboundErrorReason.describe(error)))
        }
        let document = try? JSONBodyParser.parse(body.readableBytesView)
        guard (200..<300).contains(status) else {
            throw HMSTokenError(.rejected(
                status: status,
                error: document?["error"]?.scalarText,
                errorDescription: document?["error_description"]?.scalarText,
                retryAfter: retryAfter))
        }
        // `expires_in` may come as a number or a string.
        guard case .string(let accessToken)? = document?["access_token"], !accessToken.isEmpty,
            let expiresText = document?["expires_in"]?.scalarText, let seconds = Double(expiresText), seconds > 0
        else {
            throw HMSTokenError(.malformedResponse(status: status))
        }
        return AccessTokenCache.Grant(token: accessToken, expiresIn: .milliseconds(Int64(min(seconds, 86_400) * 1000)))
    }

    /// `application/x-www-form-urlencoded` value encoding: everything but RFC 3986 unreserved characters is
    /// percent-encoded (client secrets are hex, but may come with `+` or `/`).
    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
