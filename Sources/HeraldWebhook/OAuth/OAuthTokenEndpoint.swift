import AsyncHTTPClient
import Foundation
import HeraldCore
import NIOCore

/// An OAuth 2.0 token endpoint (RFC 6749 §4.4 client credentials, RFC 7523 JWT bearer): a form
/// posted, a grant read back, for ``AccessTokenCache`` to keep.
public struct OAuthTokenEndpoint: Sendable {
    /// Token answers are small; anything longer is not one.
    static let maximumResponseBytes = 64 * 1024

    let client: HTTPClient
    /// The endpoint's URL.
    public let url: String
    let timeout: Duration

    /// An endpoint at `url`, reached through `client` within `timeout`.
    public init(client: HTTPClient, url: String, timeout: Duration) {
        self.client = client
        self.url = url
        self.timeout = timeout
    }

    /// Posts `form` (name and value pairs, encoded here) and reads the grant; `expires_in` may
    /// come as a number or a string, and is taken as at most a day.
    public func requestGrant(_ form: [(String, String)]) async throws(OAuthTokenError) -> AccessTokenCache<OAuthTokenError>.Grant {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        request.body = .bytes(ByteBuffer(string: form.map { "\($0.0)=\(Self.formEncode($0.1))" }.joined(separator: "&")))
        let status: Int
        let retryAfter: String?
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "retry-after")
            body = try await response.body.collect(upTo: Self.maximumResponseBytes)
        } catch {
            // The error's text never holds the form, so a secret in it cannot leak through it.
            throw OAuthTokenError(.transport(OutboundErrorReason.describe(error)))
        }
        let document = try? JSONBodyParser.parse(body.readableBytesView)
        guard (200..<300).contains(status) else {
            throw OAuthTokenError(.rejected(
                status: status, error: document?["error"]?.scalarText, errorDescription: document?["error_description"]?.scalarText,
                retryAfter: retryAfter))
        }
        guard case .string(let accessToken)? = document?["access_token"], !accessToken.isEmpty,
            let expiresText = document?["expires_in"]?.scalarText, let seconds = Double(expiresText), seconds > 0
        else {
            throw OAuthTokenError(.malformedResponse(status: status))
        }
        return AccessTokenCache.Grant(token: accessToken, expiresIn: .milliseconds(Int64(min(seconds, 86_400) * 1000)))
    }

    /// `application/x-www-form-urlencoded` value encoding: everything but RFC 3986 unreserved
    /// characters is percent-encoded (secrets may hold `+` or `/`).
    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
