import AsyncHTTPClient
import HeraldCore
import NIOCore

/// Exchanges signed assertions for access tokens at the token endpoint (providers.md §2.2 steps 2–3).
struct FCMTokenExchanger: Sendable {
    /// An access token and how long the endpoint said it lives.
    struct Grant: Sendable {
        let accessToken: String
        let expiresIn: Duration
    }

    /// The grant type of RFC 7523, already form-encoded.
    private static let grantType = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
    /// Token answers are small; anything longer is not one.
    private static let maximumResponseBytes = 64 * 1024

    let client: HTTPClient
    let url: String
    let timeout: Duration

    /// Posts `assertion` and reads the grant.
    func exchange(assertion: String) async throws(FCMTokenError) -> Grant {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        // A JWT is base64url and dots only, so it needs no percent-encoding.
        request.body = .bytes(ByteBuffer(string: "grant_type=\(Self.grantType)&assertion=\(assertion)"))
        let status: Int
        let retryAfter: String?
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "retry-after")
            body = try await response.body.collect(upTo: Self.maximumResponseBytes)
        } catch {
            throw FCMTokenError(.transport("\(error)"))
        }
        let document = try? JSONBodyParser.parse(body.readableBytesView)
        guard (200..<300).contains(status) else {
            throw FCMTokenError(.rejected(
                status: status,
                error: document?["error"]?.scalarText,
                errorDescription: document?["error_description"]?.scalarText,
                retryAfter: retryAfter))
        }
        // `expires_in` may come as a number or a string (§2.2 step 3).
        guard case .string(let accessToken)? = document?["access_token"], !accessToken.isEmpty,
            let expiresText = document?["expires_in"]?.scalarText, let seconds = Double(expiresText), seconds > 0
        else {
            throw FCMTokenError(.malformedResponse(status: status))
        }
        return Grant(accessToken: accessToken, expiresIn: .milliseconds(Int64(min(seconds, 86_400) * 1000)))
    }
}
