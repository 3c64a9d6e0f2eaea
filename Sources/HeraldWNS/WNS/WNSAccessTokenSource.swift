import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore

/// The OAuth 2.0 client-credentials access token of one WNS provider (providers.md §4.1 (a)), shared by all its sends.
///
/// The token is cached until shortly before `expires_in` runs out (5 minutes, or half the lifetime of a shorter
/// token). Concurrent callers that find no valid token wait for one request together (single flight), and a token
/// WNS answered `401` to is dropped so that the next caller fetches a new one — once, however many sends saw the 401.
actor WNSAccessTokenSource {
    /// What the token request sends.
    struct Credentials: Sendable {
        var clientID: String
        var clientSecret: String
        var endpoint: String
        var scope: String = "notify.windows.com"
    }

    /// How long before its expiry a token is replaced.
    static let refreshMargin: Duration = .seconds(300)

    private struct Cached {
        var token: String
        var refreshAt: ContinuousClock.Instant
    }

    private let credentials: Credentials
    private let client: HTTPClient
    private let timeout: Duration
    private let logger: Logger
    private var cached: Cached?
    private var inFlight: Task<Cached, any Error>?
    /// Token requests made so far, for logs.
    private(set) var fetchCount = 0

    init(credentials: Credentials, client: HTTPClient, timeout: Duration, logger: Logger) {
        self.credentials = credentials
        self.client = client
        self.timeout = timeout
        self.logger = logger
    }

    /// A valid access token, fetching one when none is cached or the cached one is about to expire.
    func current() async throws(WNSAccessTokenError) -> String {
        if let cached, ContinuousClock.now < cached.refreshAt { return cached.token }
        let task: Task<Cached, any Error>
        if let inFlight {
            task = inFlight
        } else {
            fetchCount += 1
            let credentials = credentials
            let client = client
            let timeout = timeout
            task = Task { try await Self.fetch(credentials: credentials, client: client, timeout: timeout) }
            inFlight = task
        }
        do {
            let fetched = try await task.value
            if inFlight == task {
                inFlight = nil
                cached = fetched
                logger.debug("WNS access token obtained")
            }
            return fetched.token
        } catch {
            let failure = error as? WNSAccessTokenError ?? .unavailable(reason: OutboundErrorReason.describe(error))
            if inFlight == task {
                // Logged once per failed request, not once per waiting send.
                inFlight = nil
                logger.warning("WNS access token request failed", metadata: ["error": "\(failure)"])
            }
            throw failure
        }
    }

    /// Forgets `token` after WNS refused it, unless a newer token already replaced it.
    func invalidate(_ token: String) {
        if cached?.token == token { cached = nil }
    }

    private static func fetch(credentials: Credentials, client: HTTPClient, timeout: Duration) async throws -> Cached {
        var request = HTTPClientRequest(url: credentials.endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        let form = [
            ("grant_type", "client_credentials"),
            ("client_id", credentials.clientID),
            ("client_secret", credentials.clientSecret),
            ("scope", credentials.scope),
        ].map { "\($0.0)=\(formEncode($0.1))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        let started = ContinuousClock.now
        let response = try await client.execute(request, timeout: TimeAmount(timeout))
        let body = try await response.body.collect(upTo: 64 * 1024)
        let status = Int(response.status.code)
        let json = try? JSONBodyParser.parse(body.readableBytesView)
        switch status {
        case 200:
            guard case .string(let token)? = json?["access_token"], !token.isEmpty else {
                throw WNSAccessTokenError.invalidResponse("no access_token")
            }
            // Classic WNS sends `expires_in` as a number, the Entra ID endpoint as a string.
            guard let lifetime = json?["expires_in"]?.scalarText.flatMap({ Double($0) }), lifetime > 0 else {
                throw WNSAccessTokenError.invalidResponse("no expires_in")
            }
            let lifetimeDuration = Duration.milliseconds(Int64(min(lifetime, 1e9) * 1000))
            let margin = min(refreshMargin, lifetimeDuration / 2)
            return Cached(token: token, refreshAt: started + lifetimeDuration - margin)
        case 400..<500:
            var error: String?
            if case .string(let code)? = json?["error"] { error = code }
            throw WNSAccessTokenError.rejected(status: status, error: error)
        default:
            throw WNSAccessTokenError.unavailable(
                reason: "HTTP \(status)", status: status, retryAfter: RetryAfter.parse(response.headers.first(name: "Retry-After")))
        }
    }

    /// `application/x-www-form-urlencoded` value encoding: everything but RFC 3986 unreserved characters is
    /// percent-encoded (a client id such as `ms-app://s-1-15-…` has `:` and `/`).
    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
