import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldHTTP2
import HTTPTypes
import Logging
import NIOCore

/// A provider of kind `fcm`: one Firebase project, sending FCM HTTP v1 messages over Herald's HTTP/2 pool
/// with OAuth access tokens of the project's service account.
public struct FCMProvider: PushProvider {
    /// Settings of one `fcm` provider.
    public struct Settings: Sendable {
        /// The Firebase project id in the send path.
        public var projectID: String
        /// Deliveries in flight at once; default 2000.
        public var maxConcurrentDeliveries = 2000
        /// Deadline of each send and of each token exchange; default 30 seconds.
        public var requestTimeout: Duration = .seconds(30)

        /// Creates settings for `projectID`.
        public init(projectID: String) {
            self.projectID = projectID
        }
    }

    /// The longest registration token accepted at registration (pushd-api.md §9).
    public static let maximumTokenBytes = 4096

    public typealias Message = FCMMessage

    public let name: String
    public var kind: String { "fcm" }
    public var maxConcurrentDeliveries: Int { settings.maxConcurrentDeliveries }

    private let settings: Settings
    private let path: String
    private let renderer: FCMMessageRenderer
    private let pool: HTTP2ConnectionPool
    private let tokens: FCMAccessTokenSource
    private let httpClient: HTTPClient
    private let logger: Logger

    /// Creates a provider sending through `pool`, exchanging `signer`'s assertions at `tokenEndpoint` with
    /// `httpClient`, which it shuts down with itself.
    public init(
        name: String, settings: Settings, pool: HTTP2ConnectionPool, signer: FCMAssertionSigner,
        tokenEndpoint: String, httpClient: HTTPClient, logger: Logger
    ) {
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.name = name
        self.settings = settings
        self.path = "/v1/projects/\(settings.projectID)/messages:send"
        self.renderer = FCMMessageRenderer(logger: logger)
        self.pool = pool
        self.httpClient = httpClient
        self.tokens = FCMAccessTokenSource(
            signer: signer,
            exchanger: FCMTokenExchanger(client: httpClient, url: tokenEndpoint, timeout: settings.requestTimeout),
            logger: logger)
        self.logger = logger
    }

    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let text = input.token?.scalarText, Self.isRegistrationToken(text) else { return nil }
        return NormalizedToken(token: text)
    }

    /// §9: a non-empty string of at most 4096 bytes without whitespace or control characters.
    static func isRegistrationToken(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count > 0, count <= maximumTokenBytes else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
        }
    }

    public func render(_ event: PublishedEvent, for variant: MessageVariant) -> RenderResult<FCMMessage> {
        renderer.render(event, for: variant, now: Int64(Date().timeIntervalSince1970))
    }

    public func send(_ message: FCMMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        let body = message.body(token: target.token)
        var accessToken: String
        do {
            accessToken = try await tokens.current()
        } catch {
            return FCMResponseTable.outcome(for: error)
        }
        var outcome = await attempt(body, accessToken: accessToken)
        if outcome.status == 401, outcome.reason == FCMResponseTable.accessTokenRejected {
            // Revoked or expired early: one new token, one retry; a second 401 is Herald's configuration.
            tokens.invalidate(accessToken)
            do {
                accessToken = try await tokens.current()
            } catch {
                return FCMResponseTable.outcome(for: error)
            }
            outcome = await attempt(body, accessToken: accessToken)
        }
        if outcome.outcome != .delivered {
            logger.debug("FCM send not delivered", metadata: [
                "subscriber": "\(target.subscriberID)", "token": "\(target.token.prefix(8))…",
                "outcome": "\(outcome.outcome)", "reason": "\(outcome.reason ?? "-")",
            ])
        }
        return outcome
    }

    /// The field every send shares, converted once for the pool.
    private static let sharedHeaders = HTTP2PreparedHeaders([.contentType: "application/json; charset=utf-8"])

    private func attempt(_ body: ByteBuffer, accessToken: String) async -> DeliveryOutcome {
        var headers = HTTPFields()
        headers.reserveCapacity(1)
        headers.append(HTTPField(name: .authorization, value: "Bearer " + accessToken))
        let request = HTTP2Request(method: .post, path: path, headers: headers, preparedHeaders: Self.sharedHeaders, body: body)
        do {
            let response = try await pool.execute(request, deadline: settings.requestTimeout)
            if response.status == 200 {
                return .delivered
            }
            return FCMResponseTable.outcome(
                status: response.status, body: Array(response.body.readableBytesView), retryAfter: response.headers[.retryAfter])
        } catch {
            return DeliveryOutcome(.transient, reason: error.reason)
        }
    }

    public var connectionStatistics: ProviderConnectionStatistics? {
        let statistics = pool.statistics
        return ProviderConnectionStatistics(
            connections: statistics.openConnections, streamsInUse: statistics.streamsInFlight, queued: statistics.queuedRequests)
    }

    public func shutdown() async {
        await pool.shutdown()
        try? await httpClient.shutdown()
    }
}
