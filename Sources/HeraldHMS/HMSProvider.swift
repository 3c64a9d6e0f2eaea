import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore
import NIOSSL

/// A provider of kind `hms`: one Huawei app, sending Push Kit server API v1 messages
/// (`POST /v1/<client_id>/messages:send`) in batches of up to 1000 tokens, with OAuth client-credentials tokens.
///
/// The batch send is the main path: deliveries whose rendered messages are equal (one variant of a publish) go out
/// together, as many requests of at most ``Settings/batchSize`` tokens, sent at once. A single send is a batch of
/// one.
public struct HMSProvider: PushProvider {
    /// Settings of one `hms` provider.
    public struct Settings: Sendable {
        /// The app id, which is also the OAuth client id (`client_id`).
        public var clientID: String
        /// The app secret (`client_secret` / `client_secret_file`).
        public var clientSecret: String
        /// The Push Kit origin (`endpoint`). Default `https://push-api.cloud.huawei.com`.
        public var endpoint: String = HMSKind.defaultEndpoint
        /// The OAuth token endpoint (`token_endpoint`). Default `https://oauth-login.cloud.huawei.com/oauth2/v3/token`.
        public var tokenEndpoint: String = HMSKind.defaultTokenEndpoint
        /// The app's launcher activity that badges need (`badge_class`); without it no badge is sent or counted.
        public var badgeClass: String?
        /// Tokens per request (`batch_size`), 1 to 1000. Default 1000.
        public var batchSize = HMSProvider.maximumBatchSize
        /// Deliveries in flight at once (`max_concurrent`). Default 2000: two full batches.
        public var maxConcurrentDeliveries = 2000
        /// HTTP connections kept to each host (`max_connections`). Default 8.
        public var maxConnections = 8
        /// Time allowed to establish a connection. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Deadline of each request, token requests included (`request_timeout`). Default 30 s.
        public var requestTimeout: Duration = .seconds(30)
        /// How far back, in milliseconds, every batch answered `80300007` makes the provider judge itself
        /// misconfigured (see ``HMSMisconfigurationDetector``). Default one minute.
        public var misconfigurationWindow: Int64 = 60_000

        /// Creates settings for the app `clientID` with `clientSecret`.
        public init(clientID: String, clientSecret: String) {
            self.clientID = clientID
            self.clientSecret = clientSecret
        }
    }

    /// The most tokens Push Kit takes in one request.
    public static let maximumBatchSize = 1000
    /// The longest token accepted at registration.
    public static let maximumTokenBytes = 4096
    /// Push Kit's answers are a few hundred bytes, a partial success's list of 1000 tokens some hundred kilobytes.
    static let maximumResponseBytes = 1 << 20

    public typealias Message = HMSMessage

    public let name: String
    public var kind: String { "hms" }
    /// Badges are counted only when they can be sent, that is with a `badge_class`.
    public var countsBadges: Bool { settings.badgeClass != nil }
    public var maxConcurrentDeliveries: Int { settings.maxConcurrentDeliveries }

    /// One token of a batch, with the index of its delivery.
    private struct Recipient: Sendable {
        let index: Int
        let token: String
    }

    /// What one request got: an HTTP answer, or the outcome of not getting one.
    private enum Posted: Sendable {
        case answered(status: Int, body: [UInt8], retryAfter: String?)
        case failed(DeliveryOutcome)
    }

    private let settings: Settings
    /// `<endpoint>/v1/<client_id>/messages:send`.
    private let sendURL: String
    private let renderer: HMSMessageRenderer
    private let client: HTTPClient
    private let tokens: HMSAccessTokenSource
    private let misconfiguration: HMSMisconfigurationMonitor
    private let logger: Logger
    /// The store's clock, so rendered expirations agree with the pipeline's time, and the misconfiguration
    /// window follows it.
    private let clock: WallClock

    /// Creates a provider with its own HTTP client, which it shuts down with itself; `tls` is the client
    /// configuration (trust roots); renders and the misconfiguration window follow `clock`.
    public init(name: String, settings: Settings, tls: TLSConfiguration, logger: Logger, clock: WallClock = .system) {
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.name = name
        self.settings = settings
        self.clock = clock
        let origin = ServiceEndpoint(url: settings.endpoint)?.origin ?? settings.endpoint
        self.sendURL = origin + "/v1/\(settings.clientID)/messages:send"
        self.renderer = HMSMessageRenderer(badgeClass: settings.badgeClass, logger: logger)
        let client = OutboundHTTPClient.make(
            .init(connectTimeout: settings.connectTimeout, maxConnectionsPerHost: settings.maxConnections), tls: tls)
        self.client = client
        self.tokens = HMSAccessTokenSource(
            clientID: settings.clientID, clientSecret: settings.clientSecret, url: settings.tokenEndpoint, client: client,
            timeout: settings.requestTimeout, logger: logger)
        self.misconfiguration = HMSMisconfigurationMonitor(HMSMisconfigurationDetector(window: settings.misconfigurationWindow))
        self.logger = logger
    }

    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        OpaquePushToken.normalized(input, maximumBytes: Self.maximumTokenBytes)
    }

    /// A Push Kit `message` as the sender made it, without its target: the body is the message object
    /// (`{"data":"…","android":{…}}`) and each batch's tokens are added to it.
    ///
    /// With a header `hms-validate-only: true` Push Kit only validates it (`validate_only`).
    public func render(_ payload: PreparedPayload) -> RenderResult<HMSMessage> {
        guard let members = payload.untargetedMessageMembers else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload"))
        }
        let message = HMSMessage(members: String(members), validateOnly: payload.headers["hms-validate-only"] == "true")
        guard message.messageBytes <= HMSMessageRenderer.maximumMessageBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        return .send(message)
    }

    public func render(_ event: PublishedEvent, for variant: MessageVariant) -> RenderResult<HMSMessage> {
        renderer.render(event, for: variant, now: clock.nowSeconds())
    }

    /// Sends deliveries grouped by message, each group in requests of at most ``Settings/batchSize`` tokens, all at
    /// once.
    public func send(
        _ deliveries: [(message: HMSMessage, target: DeliveryTarget)], report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        guard !deliveries.isEmpty else { return }
        let reportLogged = DeliveryTarget.loggingUndelivered(deliveries, as: "HMS", logger: logger, report: report)
        let batches = Self.batches(of: deliveries.map { $0.message }, size: settings.batchSize)
        await withDiscardingTaskGroup { group in
            for batch in batches {
                let recipients = batch.indices.map { Recipient(index: $0, token: deliveries[$0].target.token) }
                group.addTask {
                    await self.send(batch.message, to: recipients, renewedAccessToken: false, report: reportLogged)
                }
            }
        }
    }

    public func send(_ message: HMSMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        await sendAsBatch(message, to: target)
    }

    /// The indices of `messages` grouped by equal message, in order of first appearance, cut into batches of at
    /// most `size`.
    static func batches(of messages: [HMSMessage], size: Int) -> [(message: HMSMessage, indices: [Int])] {
        var order: [HMSMessage] = []
        var groups: [HMSMessage: [Int]] = [:]
        // Neighbours mostly share a message (one variant of a page): comparing with the last one is cheaper than hashing.
        var last: HMSMessage?
        var lastIndices: [Int] = []
        func flushLast() {
            guard let last else { return }
            if groups[last] == nil { order.append(last) }
            groups[last, default: []].append(contentsOf: lastIndices)
        }
        for (index, message) in messages.enumerated() {
            if last == message {
                lastIndices.append(index)
                continue
            }
            flushLast()
            last = message
            lastIndices = [index]
        }
        flushLast()
        let batchSize = max(1, size)
        var batches: [(message: HMSMessage, indices: [Int])] = []
        for message in order {
            let indices = groups[message] ?? []
            var start = 0
            while start < indices.count {
                let end = min(indices.count, start + batchSize)
                batches.append((message, Array(indices[start..<end])))
                start = end
            }
        }
        return batches
    }

    /// Sends `message` to `recipients` in one request and reports each one's outcome; renews the access token and
    /// sends again once when Push Kit refuses it, and splits the batch when Push Kit finds it too large.
    private func send(
        _ message: HMSMessage, to recipients: [Recipient], renewedAccessToken: Bool,
        report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        let accessToken: String
        do {
            accessToken = try await tokens.current()
        } catch {
            let outcome = error.deliveryOutcome
            for recipient in recipients { report(recipient.index, outcome) }
            return
        }
        let status: Int
        let verdict: HMSAnswerTable.Verdict
        switch await post(message, tokens: recipients.map { $0.token }, accessToken: accessToken) {
        case .failed(let outcome):
            for recipient in recipients { report(recipient.index, outcome) }
            return
        case .answered(let answeredStatus, let body, let retryAfter):
            status = answeredStatus
            verdict = HMSAnswerTable.verdict(status: answeredStatus, body: body, retryAfter: retryAfter)
        }
        switch verdict {
        case .delivered:
            misconfiguration.recordAccepted(now: clock.nowMillis())
            for recipient in recipients { report(recipient.index, .delivered) }
        case .partiallyDelivered(let illegalTokens):
            misconfiguration.recordAccepted(now: clock.nowMillis())
            for recipient in recipients {
                report(recipient.index, illegalTokens[recipient.token] ?? .delivered)
            }
        case .allTokensInvalid(let dead):
            switch misconfiguration.recordAllTokensInvalid(now: clock.nowMillis()) {
            case .deadTokens:
                for recipient in recipients { report(recipient.index, dead) }
            case .misconfigured(let newly):
                let metadata: Logger.Metadata = [
                    "hms.client_id": "\(settings.clientID)", "tokens": "\(recipients.count)", "status": "\(status)",
                ]
                if newly {
                    logger.error(
                        """
                        Push Kit found every token invalid in every batch of the last minute: client_id and client_secret \
                        probably belong to another app; no token is dropped
                        """,
                        metadata: metadata)
                } else {
                    logger.debug("Push Kit found every token invalid again; the provider is probably misconfigured", metadata: metadata)
                }
                for recipient in recipients { report(recipient.index, HMSAnswerTable.probablyMisconfigured) }
            }
        case .accessTokenRejected(let outcome):
            guard !renewedAccessToken else {
                // A token fetched a moment ago refused too: Herald's credentials, not the token's age.
                for recipient in recipients { report(recipient.index, outcome) }
                return
            }
            logger.debug("Push Kit refused the access token; renewing it", metadata: ["reason": "\(outcome.reason ?? "-")"])
            tokens.invalidate(accessToken)
            await send(message, to: recipients, renewedAccessToken: true, report: report)
        case .tooManyTokens(let outcome):
            guard recipients.count > 1 else {
                for recipient in recipients { report(recipient.index, outcome) }
                return
            }
            let half = recipients.count / 2
            logger.debug("Push Kit found the batch too large; sending it in halves", metadata: ["tokens": "\(recipients.count)"])
            await send(message, to: Array(recipients[..<half]), renewedAccessToken: renewedAccessToken, report: report)
            await send(message, to: Array(recipients[half...]), renewedAccessToken: renewedAccessToken, report: report)
        case .everyone(let outcome):
            for recipient in recipients { report(recipient.index, outcome) }
        }
    }

    /// Posts one `messages:send` request for `tokens`.
    private func post(_ message: HMSMessage, tokens: [String], accessToken: String) async -> Posted {
        var request = HTTPClientRequest(url: sendURL)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        request.body = .bytes(message.body(tokens: tokens))
        do {
            let response = try await client.execute(request, timeout: TimeAmount(settings.requestTimeout))
            let status = Int(response.status.code)
            let retryAfter = response.headers.first(name: "Retry-After")
            let body = try await response.body.collect(upTo: Self.maximumResponseBytes)
            return .answered(status: status, body: Array(body.readableBytesView), retryAfter: retryAfter)
        } catch {
            return .failed(DeliveryOutcome(.transient, reason: OutboundErrorReason.describe(error)))
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}

extension HMSProvider.Settings: CustomStringConvertible {
    /// The settings without the secret, so that printing them never shows it.
    public var description: String {
        "HMSProvider.Settings(client_id: \(clientID), endpoint: \(endpoint), token_endpoint: \(tokenEndpoint), batch_size: \(batchSize))"
    }
}
