import Foundation

/// The simulator's OAuth 2 token endpoint: the JWT-bearer grant of RFC 7523 as Google serves it
/// (providers.md §2.2, §2.6).
struct FCMTokenEndpoint: Sendable {
    /// The path it serves, which the generated service accounts put in `token_uri`.
    static let path = "/token"
    /// The grant type of RFC 7523.
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// Google's token endpoint, which Google's own libraries always put in `aud`.
    static let googleAudience = "https://oauth2.googleapis.com/token"
    /// Scopes that allow FCM sends.
    static let acceptedScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]
    /// Google's words for an `iat`/`exp` it does not accept.
    static let timeframeDescription =
        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."

    let configuration: FCMSimulator.Configuration
    let store: FCMSimulatorStore
    let verifier: FCMAssertionVerifier

    /// Answers one token request.
    func process(_ request: SimulatorHTTP2Request) -> FCMResponse {
        let response = self.answer(request)
        if response.status != 200 {
            self.store.recordTokenRejection(error: response.reason ?? "HTTP \(response.status)")
        }
        return response
    }

    private func answer(_ request: SimulatorHTTP2Request) -> FCMResponse {
        guard request.header(":method") == "POST" else {
            return .oauthError(405, error: "invalid_request", description: "The token endpoint accepts only POST.")
        }
        let form = Self.decodeForm(request.body.map { String(buffer: $0) } ?? "")
        guard let grantType = form["grant_type"] else {
            return .oauthError(error: "invalid_request", description: "Missing required parameter: grant_type")
        }
        guard grantType == Self.grantType else {
            return .oauthError(error: "unsupported_grant_type", description: "Invalid grant_type: \(grantType)")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return .oauthError(error: "invalid_request", description: "Missing required parameter: assertion")
        }
        let verified: FCMAssertionVerifier.Verified
        switch self.verifier.verify(assertion) {
        case .success(let result):
            verified = result
        case .failure(.malformed):
            return .oauthError(error: "invalid_grant", description: "Invalid JWT: the assertion is not a well-formed JWT with iss, aud, iat and exp.")
        case .failure(.algorithm(let algorithm)):
            return .oauthError(error: "invalid_grant", description: "Invalid JWT: unsupported algorithm \(algorithm), expected RS256.")
        case .failure(.unknownAccount):
            return .oauthError(error: "invalid_grant", description: "Invalid grant: account not found")
        case .failure(.signature):
            return .oauthError(error: "invalid_grant", description: "Invalid JWT Signature.")
        }
        let claims = verified.claims
        guard claims.aud == Self.googleAudience || claims.aud == Self.ownURL(of: request) else {
            return .oauthError(error: "invalid_grant", description: "Invalid JWT: Failed audience check.")
        }
        let now = Date().timeIntervalSince1970
        guard claims.exp > claims.iat, claims.exp - claims.iat <= 3600, claims.exp > now,
            claims.iat <= now + Double(self.configuration.assertionClockSkew)
        else {
            return .oauthError(error: "invalid_grant", description: Self.timeframeDescription)
        }
        let scopes = Set((claims.scope ?? "").split(separator: " ").map(String.init))
        guard !scopes.isDisjoint(with: Self.acceptedScopes) else {
            return .oauthError(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided.")
        }
        let lifetime = self.configuration.accessTokenLifetime
        let token = self.store.issueAccessToken(
            clientEmail: verified.account.clientEmail, projectID: verified.account.projectID, lifetime: lifetime, now: now)
        return .ok(
            FCMJSONText.object([
                ("access_token", FCMJSONText.quoted(token)), ("expires_in", String(lifetime)),
                ("token_type", FCMJSONText.quoted("Bearer")),
            ]),
            extraHeaders: [("cache-control", "no-cache, no-store, max-age=0, must-revalidate"), ("pragma", "no-cache")])
    }

    /// The endpoint's URL as the client addressed it (`https://<:authority>/token`), a valid `aud`.
    static func ownURL(of request: SimulatorHTTP2Request) -> String? {
        guard let authority = request.header(":authority") ?? request.header("host") else { return nil }
        return "\(request.header(":scheme") ?? "https")://\(authority)\(Self.path)"
    }

    /// Decodes an `application/x-www-form-urlencoded` body; the first occurrence of a name wins.
    static func decodeForm(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0])
            if fields[name] == nil {
                fields[name] = parts.count > 1 ? decode(parts[1]) : ""
            }
        }
        return fields
    }
}
