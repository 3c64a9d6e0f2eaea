import Foundation
import Hummingbird

extension WNSSimulatorStore {
    /// The scopes login.live.com grants WNS tokens for (`s.notify.live.net` for old Windows Phone channels).
    static let scopes: Set<String> = ["notify.windows.com", "s.notify.live.net"]

    /// `POST /accesstoken.srf` (providers.md §4.1 (a)): a form with `grant_type=client_credentials`, a known
    /// `client_id` and its `client_secret`, and the WNS scope; `400` with an OAuth 2.0 error body otherwise.
    func token(_ request: Request) async throws -> Response {
        let injection = state.withLock { state -> HTTP1SimulatorInjection? in
            state.statistics.tokenRequests += 1
            return state.queuedTokenAnswers.isEmpty ? nil : state.queuedTokenAnswers.removeFirst()
        }
        switch injection {
        case .status(let status, let retryAfter)?:
            return reject(status: status, error: "server_error", description: "Injected failure", retryAfter: retryAfter)
        case .throttle(let retryAfter)?:
            return reject(status: 429, error: "temporarily_unavailable", description: "Too many requests", retryAfter: retryAfter)
        case .delay(let milliseconds)?:
            try await Task.sleep(for: .milliseconds(milliseconds))
        case nil:
            break
        }
        let contentType = SimulatorHTTPAnswer.header(request, "Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return reject(error: "invalid_request", description: "The Content-Type must be application/x-www-form-urlencoded.")
        }
        let body = try await request.body.collect(upTo: 64 * 1024)
        let form = WNSFormBody(String(buffer: body))
        guard let grantType = form["grant_type"] else {
            return reject(error: "invalid_request", description: "The request is missing the grant_type parameter.")
        }
        guard grantType == "client_credentials" else {
            return reject(error: "unsupported_grant_type", description: "The grant type is not supported.")
        }
        guard let clientID = form["client_id"], let secret = configuration.credentials[clientID] else {
            return reject(error: "invalid_client", description: "The client id is not valid.")
        }
        guard form["client_secret"] == secret else {
            return reject(error: "invalid_client", description: "The client secret is not valid.")
        }
        guard let scope = form["scope"], Self.scopes.contains(scope) else {
            return reject(error: "invalid_scope", description: "The provided value for the input parameter 'scope' is not valid.")
        }
        var random = SystemRandomNumberGenerator()
        let token = "Eg" + (0..<6).map { _ in String(random.next() as UInt64, radix: 36) }.joined()
        let lifetime = configuration.tokenLifetime
        state.withLock { state in
            state.statistics.tokensIssued += 1
            state.tokens[token] = .init(clientID: clientID, expiresAt: .now + .seconds(lifetime))
        }
        return SimulatorHTTPAnswer.make(
            status: 200,
            headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store"), ("Pragma", "no-cache")],
            body: "{\"access_token\":\"\(token)\",\"token_type\":\"bearer\",\"expires_in\":\(lifetime)}")
    }

    private func reject(status: Int = 400, error: String, description: String, retryAfter: Int? = nil) -> Response {
        state.withLock { $0.statistics.rejections[status, default: 0] += 1 }
        configuration.logger.debug("WNS token request refused", metadata: ["status": "\(status)", "error": "\(error)"])
        var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return SimulatorHTTPAnswer.make(
            status: status, headers: headers, body: "{\"error\":\"\(error)\",\"error_description\":\"\(description)\"}")
    }
}
