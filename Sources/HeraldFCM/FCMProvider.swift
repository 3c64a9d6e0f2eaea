import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldWebhook
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
    /// The store's clock, so rendered expirations agree with the pipeline's time.
    private let clock: WallClock

    /// Creates a provider sending through `pool`, exchanging `signer`'s assertions at `tokenEndpoint` with
    /// `httpClient`, which it shuts down with itself; renders are stamped with `clock`.
    public init(
        name: String, settings: Settings, pool: HTTP2ConnectionPool, signer: FCMAssertionSigner,
        tokenEndpoint: String, httpClient: HTTPClient, logger: Logger, clock: WallClock = .system
    ) {
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.name = name
        self.settings = settings
        self.clock = clock
        self.path = "/v1/projects/\(settings.projectID)/messages:send"
        self.renderer = FCMMessageRenderer(logger: logger)
        self.pool = pool
        self.httpClient = httpClient
        self.tokens = FCMAccessTokenSource(
            signer: signer,
            endpoint: OAuthTokenEndpoint(client: httpClient, url: tokenEndpoint, timeout: settings.requestTimeout),
            logger: logger)
        self.logger = logger
    }

    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        OpaquePushToken.normalized(input, maximumBytes: Self.maximumTokenBytes)
    }

    /// An FCM HTTP v1 `message` as the sender made it, without its target: the body is the
    /// message object (`{"data":{...},"android":{...}}`) and the token is added per send.
    ///
    /// With a header `fcm-topic` or `fcm-condition`, the message goes to that topic or condition
    /// instead (gorush's `topic` and `condition`); the delivery's token is then only its label.
    /// With `fcm-validate-only: true` FCM only validates it (gorush's `dry_run`).
    public func render(_ payload: PreparedPayload) -> RenderResult<FCMMessage> {
        guard let members = payload.untargetedMessageMembers else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload"))
        }
        // After the message object: the request's own fields.
        let close = payload.headers["fcm-validate-only"] == "true" ? #"},"validate_only":true}"# : "}}"
        let target = payload.headers["fcm-condition"].map { ("condition", $0) } ?? payload.headers["fcm-topic"].map { ("topic", $0) }
        if let (field, value) = target {
            let body = #"{"message":{"# + JSONWriter.quoted(field) + ":" + JSONWriter.quoted(value) + (members.isEmpty ? "" : "," + members) + close
            return .send(FCMMessage(fixedBody: Array(body.utf8)))
        }
        return .send(FCMMessage(suffix: Array((members.isEmpty ? "\"" + close : "\"," + members + close).utf8)))
    }

    public func render(_ event: PublishedEvent, for variant: MessageVariant) -> RenderResult<FCMMessage> {
        renderer.render(event, for: variant, now: clock.nowSeconds())
    }

    /// Sends a page of deliveries as one batch through the pool with one access token; sends
    /// answered 401 are sent once more, together, with a new token.
    public func send(
        _ deliveries: [(message: FCMMessage, target: DeliveryTarget)], report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        guard !deliveries.isEmpty else { return }
        let reportLogged = DeliveryTarget.loggingUndelivered(deliveries, as: "FCM", logger: logger, report: report)
        let rejected = DeliveryIndexList()
        guard let accessToken = await currentAccessToken(for: Array(deliveries.indices), report: reportLogged) else { return }
        await sendBatch(deliveries, indices: Array(deliveries.indices), accessToken: accessToken) { index, outcome in
            if outcome.status == 401, outcome.reason == FCMResponseTable.accessTokenRejected {
                rejected.append(index)
            } else {
                reportLogged(index, outcome)
            }
        }
        let retry = rejected.indices
        guard !retry.isEmpty else { return }
        // Revoked or expired early: one new token, one retry; a second 401 is Herald's configuration.
        tokens.invalidate(accessToken)
        guard let renewed = await currentAccessToken(for: retry, report: reportLogged) else { return }
        await sendBatch(deliveries, indices: retry, accessToken: renewed, report: reportLogged)
    }

    public func send(_ message: FCMMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        await sendAsBatch(message, to: target)
    }

    /// The access token, or `nil` after reporting the exchange's failure for every index.
    private func currentAccessToken(for indices: [Int], report: @Sendable (Int, DeliveryOutcome) -> Void) async -> String? {
        do {
            return try await tokens.current()
        } catch {
            let outcome = error.deliveryOutcome
            for index in indices { report(index, outcome) }
            return nil
        }
    }

    /// The field every send shares, converted once for the pool.
    private static let sharedHeaders = HTTP2PreparedHeaders([.contentType: "application/json; charset=utf-8"])

    /// Sends `deliveries[indices]` through the pool, reporting outcomes by index in `deliveries`.
    private func sendBatch(
        _ deliveries: [(message: FCMMessage, target: DeliveryTarget)], indices: [Int], accessToken: String,
        report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        let authorization = HTTPField(name: .authorization, value: "Bearer " + accessToken)
        let requests = indices.map { index in
            let delivery = deliveries[index]
            var headers = HTTPFields()
            headers.reserveCapacity(1)
            headers.append(authorization)
            return HTTP2Request(
                method: .post, path: path, headers: headers, preparedHeaders: Self.sharedHeaders,
                body: delivery.message.body(token: delivery.target.token))
        }
        await pool.execute(requests, maxConcurrent: maxConcurrentDeliveries, deadline: settings.requestTimeout) { slot, result in
            switch result {
            case .success(let response) where response.status == 200:
                report(indices[slot], .delivered)
            case .success(let response):
                report(indices[slot], FCMResponseTable.outcome(
                    status: response.status, body: Array(response.body.readableBytesView), retryAfter: response.headers[.retryAfter]))
            case .failure(let error):
                report(indices[slot], DeliveryOutcome(.transient, reason: error.reason))
            }
        }
    }

    public var connectionStatistics: ProviderConnectionStatistics? {
        let statistics = pool.statistics
        return ProviderConnectionStatistics(
            connections: statistics.openConnections, streamsInUse: statistics.streamsInFlight, queued: statistics.queuedRequests)
    }

    /// Opens a connection to FCM if the pool has none, without waiting for it.
    public func warmUp() {
        pool.warmUp()
    }

    public func shutdown() async {
        await pool.shutdown()
        try? await httpClient.shutdown()
    }
}
