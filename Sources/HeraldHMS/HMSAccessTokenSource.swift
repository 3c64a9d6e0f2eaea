import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore
import Synchronization

/// The OAuth 2.0 client-credentials access token of one `hms` provider: obtained on first use, cached until shortly
/// before `expires_in` runs out, and refreshed by a single request however many batches need it at once.
final class HMSAccessTokenSource: Sendable {
    /// The longest a token is refreshed ahead of its expiry (Huawei's tokens live an hour).
    static let maximumRefreshMargin: Duration = .seconds(300)
    /// Token answers are small; anything longer is not one.
    private static let maximumResponseBytes = 64 * 1024

    /// An access token and how long the endpoint said it lives.
    struct Grant: Sendable {
        let accessToken: String
        let expiresIn: Duration
    }

    private struct Cached: Sendable {
        let value: String
        /// When a new token is fetched instead: the expiry minus a margin.
        let refreshAt: ContinuousClock.Instant
    }

    private enum Lookup {
        case cached(String)
        case pending(Task<Result<Cached, HMSTokenError>, Never>)
    }

    private struct State: Sendable {
        var cached: Cached?
        /// The request in flight, which every caller waits for instead of starting another.
        var refresh: Task<Result<Cached, HMSTokenError>, Never>?
    }

    private let clientID: String
    private let clientSecret: String
    /// The token endpoint's URL.
    let url: String
    private let client: HTTPClient
    private let timeout: Duration
    private let logger: Logger
    private let state = Mutex(State())

    /// Creates a source asking `url` for tokens of the app `clientID` with `clientSecret`, through `client`.
    init(clientID: String, clientSecret: String, url: String, client: HTTPClient, timeout: Duration, logger: Logger) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.url = url
        self.client = client
        self.timeout = timeout
        self.logger = logger
    }

    /// A valid access token, from the cache or from the request this call starts or joins.
    func current() async throws(HMSTokenError) -> String {
        let now = ContinuousClock.now
        let lookup: Lookup = state.withLock { state in
            if let cached = state.cached, now < cached.refreshAt {
                return .cached(cached.value)
            }
            if let refresh = state.refresh {
                return .pending(refresh)
            }
            // Started under the lock so that no second caller can start another; it takes the lock itself
            // only after this one is released.
            let refresh = Task { await self.refresh() }
            state.refresh = refresh
            return .pending(refresh)
        }
        switch lookup {
        case .cached(let token):
            return token
        case .pending(let refresh):
            return try await refresh.value.get().value
        }
    }

    /// Forgets `token` after Push Kit refused it, unless a newer one has replaced it already.
    ///
    /// Many batches can be refused with the same token at once; only the first drops it, and the rest then share
    /// the one request that follows.
    func invalidate(_ token: String) {
        state.withLock { state in
            if state.cached?.value == token {
                state.cached = nil
            }
        }
    }

    private func refresh() async -> Result<Cached, HMSTokenError> {
        let started = ContinuousClock.now
        let result: Result<Cached, HMSTokenError>
        do throws(HMSTokenError) {
            let grant = try await requestGrant()
            // Measured from the request, so the margin also covers the request's own latency.
            let margin = min(Self.maximumRefreshMargin, grant.expiresIn / 10)
            result = .success(Cached(value: grant.accessToken, refreshAt: started + grant.expiresIn - margin))
            logger.debug("obtained an HMS access token", metadata: [
                "hms.client_id": "\(clientID)", "hms.token_endpoint": "\(url)", "hms.expires_in": "\(grant.expiresIn)",
            ])
        } catch {
            result = .failure(error)
            logger.warning("HMS access token request failed", metadata: [
                "hms.client_id": "\(clientID)", "hms.token_endpoint": "\(url)", "error": "\(error)",
            ])
        }
        state.withLock { state in
            state.refresh = nil
            if case .success(let cached) = result {
                state.cached = cached
            }
        }
        return result
    }

    /// Posts the client credentials (`grant_type=client_credentials&client_id=…&client_secret=…`) and reads the
    /// grant.
    private func requestGrant() async throws(HMSTokenError) -> Grant {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        let form = [
            ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret),
        ].map { "\($0.0)=\(Self.formEncode($0.1))" }.joined(separator: "&")
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
        return Grant(accessToken: accessToken, expiresIn: .milliseconds(Int64(min(seconds, 86_400) * 1000)))
    }

    /// `application/x-www-form-urlencoded` value encoding: everything but RFC 3986 unreserved characters is
    /// percent-encoded (client secrets are hex, but may come with `+` or `/`).
    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
