import Foundation
import Hummingbird

extension HMSSimulatorStore {
    /// The path of Huawei's OAuth 2.0 token endpoint.
    static let tokenPath = "/oauth2/v3/token"

    /// `POST /oauth2/v3/token`: the client-credentials grant as `oauth-login.cloud.huawei.com` serves it — a form
    /// with `grant_type=client_credentials`, a known `client_id` (the app id) and its `client_secret`; `400` with
    /// Huawei's numeric OAuth error otherwise. The `error`/`sub_error` numbers follow Huawei's answers where they
    /// are known (`1101`/`20152` for a wrong secret); the others are illustrative.
    func token(_ request: Request) async throws -> Response {
        switch arriveAtTokenEndpoint() {
        case .code(let code, let httpStatus, let msg, let retryAfter)?:
            return rejectToken(httpStatus, error: Int(code) ?? 1203, subError: 0, description: msg, retryAfter: retryAfter)
        case .status(let httpStatus, let retryAfter)?:
            return rejectToken(httpStatus, error: 1203, subError: 11205, description: "system busy", retryAfter: retryAfter)
        case .delay(let milliseconds)?:
            try await Task.sleep(for: .milliseconds(milliseconds))
        case nil:
            break
        }
        let contentType = SimulatorHTTPAnswer.header(request, "Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return rejectToken(error: 1101, subError: 20001, description: "invalid request")
        }
        let body = try await request.body.collect(upTo: 64 * 1024)
        let form = WNSFormBody(String(buffer: body))
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            return rejectToken(error: 1102, subError: 20001, description: "missing required param: grant_type")
        }
        guard grantType == "client_credentials" else {
            return rejectToken(error: 1101, subError: 20003, description: "unsupported grant_type")
        }
        guard let clientID = form["client_id"], !clientID.isEmpty else {
            return rejectToken(error: 1102, subError: 20001, description: "missing required param: client_id")
        }
        guard let secret = configuration.credentials[clientID] else {
            return rejectToken(error: 1101, subError: 20155, description: "invalid client_id")
        }
        guard form["client_secret"] == secret else {
            return rejectToken(error: 1101, subError: 20152, description: "invalid client_secret")
        }
        let lifetime = configuration.accessTokenLifetime
        let token = issueAccessToken(appID: clientID, lifetime: lifetime, now: Date().timeIntervalSince1970)
        configuration.logger.trace("HMS access token issued", metadata: ["app": "\(clientID)", "expires_in": "\(lifetime)"])
        return HMSAnswer.accessToken(token, expiresIn: lifetime)
    }

    /// Counts and answers a refused token request.
    private func rejectToken(
        _ httpStatus: Int = 400, error: Int, subError: Int, description: String, retryAfter: Int? = nil
    ) -> Response {
        recordTokenRejection(description)
        configuration.logger.debug(
            "HMS token request refused", metadata: ["status": "\(httpStatus)", "error": "\(error)", "description": "\(description)"])
        return HMSAnswer.oauthError(httpStatus, error: error, subError: subError, description: description, retryAfter: retryAfter)
    }
}
