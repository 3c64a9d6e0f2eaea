import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore
import NIOSSL

/// A provider of kind `wns`: Windows Push Notification Services for one app (package SID and secret).
public struct WNSProvider: PushProvider {
    /// Settings of one `wns` provider.
    public struct Settings: Sendable {
        /// The notification type every subscriber gets (`type`). Default toast.
        public var type: WNSNotificationType = .toast
        /// The app's package SID or Entra ID application id (`client_id`).
        public var clientID: String
        /// The app's secret (`client_secret` / `client_secret_file`).
        public var clientSecret: String
        /// The OAuth token endpoint (`token_endpoint`). Default `https://login.live.com/accesstoken.srf`.
        public var tokenEndpoint: String = WNSKind.defaultTokenEndpoint
        /// Whether `token_endpoint` was configured, which makes channel URIs on its origin acceptable (§9).
        public var tokenEndpointConfigured = false
        /// The toast `launch` attribute template (`launch_template`).
        public var launchTemplate: Template?
        /// Timeouts and limits (`timeout`, `max_concurrent`).
        public var http = ProviderHTTPSettings()

        /// Creates settings for the app `clientID` with `clientSecret`.
        public init(clientID: String, clientSecret: String) {
            self.clientID = clientID
            self.clientSecret = clientSecret
        }
    }

    public typealias Message = WNSMessage

    public let name: String
    public var kind: String { "wns" }
    /// Only badge providers send (and count) badges (pushd-api.md §7).
    public var countsBadges: Bool { renderer.type == .badge }
    public var maxConcurrentDeliveries: Int { settings.http.maxConcurrentDeliveries }

    private let settings: Settings
    private let renderer: WNSRenderer
    private let channelRule: ChannelURLRule
    /// Posts to channel URIs, through `egress` when there is one.
    private let client: HTTPClient
    /// Fetches access tokens from the configured endpoint, which no subscriber chose, so never through `egress`:
    /// an `allow` list for channels must not cut Herald off from its token endpoint.
    private let tokenClient: HTTPClient?
    private let tokens: WNSAccessTokenSource
    private let egress: EgressGuard?
    private let logger: Logger
    /// The store's clock, so rendered expirations agree with the pipeline's time.
    private let clock: WallClock

    /// Creates a provider with its own HTTP client; `tls` is the client configuration (trust roots); channels are
    /// reached through `egress` when given; renders are stamped with `clock`.
    public init(
        name: String, settings: Settings, tls: TLSConfiguration, egress: EgressGuard? = nil, logger: Logger, clock: WallClock = .system
    ) {
        self.name = name
        self.settings = settings
        self.clock = clock
        self.renderer = WNSRenderer(type: settings.type, launchTemplate: settings.launchTemplate)
        self.channelRule = ChannelURLRule(
            serviceDomain: "notify.windows.com",
            alternateOrigin: settings.tokenEndpointConfigured ? ChannelOrigin(url: settings.tokenEndpoint) : nil)
        self.client = settings.http.makeClient(tls: tls, egress: egress)
        self.tokenClient = egress == nil ? nil : settings.http.makeClient(tls: tls)
        self.egress = egress
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.logger = logger
        self.tokens = WNSAccessTokenSource(
            credentials: .init(clientID: settings.clientID, clientSecret: settings.clientSecret, endpoint: settings.tokenEndpoint),
            client: tokenClient ?? client,
            timeout: settings.http.requestTimeout,
            logger: logger)
    }

    /// The channel URI, as is, when it is on `*.notify.windows.com` (or the configured token endpoint's origin).
    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let token = input.token?.scalarText, channelRule.accepts(token) else { return nil }
        return NormalizedToken(token: token)
    }

    public var hasSubscriberDestinations: Bool { true }

    /// Channel URIs name one of the service's many hosts; each is limited on its own.
    public func destinationHost(of token: String) -> String? {
        DestinationHost.of(token)
    }

    public var destinationPolicy: DestinationPolicy? { egress?.policy }

    public func variant(lang: String?, silent: Bool, badge: Int?, version: String?) -> MessageVariant {
        renderer.variant(lang: lang, silent: silent, badge: badge)
    }

    /// A WNS notification as the sender made it: the XML (or raw) body, its type from `x-wns-type`
    /// (`wns/toast` when absent), `x-wns-ttl`, `x-wns-tag`, `x-wns-cache-policy` and `x-wns-requestforstatus`.
    public func render(_ payload: PreparedPayload) -> RenderResult<WNSMessage> {
        let typeName = payload.headers["x-wns-type"].map { $0.hasPrefix("wns/") ? String($0.dropFirst(4)) : $0 } ?? "toast"
        guard let type = WNSNotificationType(rawValue: typeName) else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload"))
        }
        let body = ByteBuffer(string: payload.body)
        // WNS refuses bodies over 5 KB (providers.md §4.2).
        guard body.readableBytes <= 5000 else { return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge")) }
        var message = WNSMessage(
            body: body, type: type, timeToLive: payload.integerHeader("x-wns-ttl").map(Int.init), tag: payload.headers["x-wns-tag"])
        message.cachePolicy = payload.headers["x-wns-cache-policy"]
        message.requestForStatus = payload.headers["x-wns-requestforstatus"]
        return .send(message)
    }

    public func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<WNSMessage> {
        renderer.render(notification, for: variant, now: clock.nowSeconds())
    }

    public func send(_ message: WNSMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        let token: String
        do {
            token = try await tokens.current()
        } catch {
            return error.outcome
        }
        let outcome = await attempt(message, to: target, token: token)
        guard outcome.status == WNSResponseTable.unauthorized else { return outcome }
        // The token expired or was revoked early: one new token, one retry; a second 401 is a configuration failure.
        logger.debug("WNS refused the access token; refreshing", metadata: ["subscriber": "\(target.subscriberID?.rawValue ?? "-")"])
        await tokens.invalidate(token)
        let fresh: String
        do {
            fresh = try await tokens.current()
        } catch {
            return error.outcome
        }
        return await attempt(message, to: target, token: fresh)
    }

    private func attempt(_ message: WNSMessage, to target: DeliveryTarget, token: String) async -> DeliveryOutcome {
        var request = HTTPClientRequest(url: target.token)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "X-WNS-Type", value: message.type.headerValue)
        request.headers.add(name: "Content-Type", value: message.type.contentType)
        if let ttl = message.timeToLive { request.headers.add(name: "X-WNS-TTL", value: String(ttl)) }
        if let tag = message.tag { request.headers.add(name: "X-WNS-Tag", value: tag) }
        if let policy = message.cachePolicy { request.headers.add(name: "X-WNS-Cache-Policy", value: policy) }
        if let status = message.requestForStatus { request.headers.add(name: "X-WNS-RequestForStatus", value: status) }
        // A `.bytes` body carries Content-Length, which WNS requires (no chunked encoding).
        request.body = .bytes(message.body)
        do {
            let response = try await client.execute(request, timeout: TimeAmount(settings.http.requestTimeout))
            // Drained so that the connection can be reused; WNS puts everything it says in headers.
            for try await _ in response.body {}
            let headers = response.headers
            let outcome = WNSResponseTable.outcome(
                status: Int(response.status.code),
                notificationStatus: headers.first(name: "X-WNS-Status") ?? headers.first(name: "X-WNS-NotificationStatus"),
                errorDescription: headers.first(name: "X-WNS-Error-Description"),
                retryAfter: headers.first(name: "Retry-After"),
                continueAfter: headers.first(name: "X-WNS-CONTINUE-AFTER"))
            if outcome.outcome != .delivered {
                logger.debug(
                    "WNS did not accept a notification",
                    metadata: [
                        "subscriber": "\(target.subscriberID?.rawValue ?? "-")", "status": "\(response.status.code)",
                        "outcome": "\(outcome.outcome)", "msg-id": "\(headers.first(name: "X-WNS-Msg-ID") ?? "-")",
                        "debug-trace": "\(headers.first(name: "X-WNS-Debug-Trace") ?? "-")",
                    ])
            }
            return outcome
        } catch {
            return OutboundErrorReason.outcome(for: error)
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
        try? await tokenClient?.shutdown()
        await egress?.close()
    }
}
