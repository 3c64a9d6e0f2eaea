import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore
import NIOSSL
import OrderedCollections

/// A provider of kind `mpns`: the retired Microsoft Push Notification Service of Windows Phone 7.x/8.0.
///
/// Microsoft shut MPNS down; the wire format is kept so that rs/pushd configurations load and stored channels
/// are unregistered when they answer 404/410 (pushd-api.md §10.6).
public struct MPNSProvider: PushProvider {
    /// Settings of one `mpns` provider.
    public struct Settings: Sendable {
        /// The notification type every subscriber gets (`type`). Default toast.
        public var type: MPNSNotificationType = .toast
        /// The toast `wp:Param` template (`param_template`).
        public var paramTemplate: Template?
        /// The tile properties (`tile_mapping`; required for tiles).
        public var tileMapping: OrderedDictionary<MPNSTileProperty, Template> = [:]
        /// A simulator or proxy whose channel URLs are accepted besides `*.notify.live.net` (`endpoint`).
        public var endpoint: ChannelOrigin?
        /// Timeouts and limits (`timeout`, `max_concurrent`).
        public var http = ProviderHTTPSettings()

        /// The defaults.
        public init() {}
    }

    public typealias Message = MPNSMessage

    public let name: String
    public var kind: String { "mpns" }
    public var maxConcurrentDeliveries: Int { settings.http.maxConcurrentDeliveries }

    private let settings: Settings
    private let renderer: MPNSRenderer
    private let channelRule: ChannelURLRule
    private let client: HTTPClient
    private let logger: Logger

    private let egress: EgressGuard?

    /// Creates a provider with its own HTTP client; `tls` is the client configuration (trust roots); channels are
    /// reached through `egress` when given.
    public init(name: String, settings: Settings, tls: TLSConfiguration, egress: EgressGuard? = nil, logger: Logger) {
        self.name = name
        self.settings = settings
        self.renderer = MPNSRenderer(type: settings.type, paramTemplate: settings.paramTemplate, tileMapping: settings.tileMapping)
        self.channelRule = ChannelURLRule(serviceDomain: "notify.live.net", alternateOrigin: settings.endpoint)
        self.client = settings.http.makeClient(tls: tls, egress: egress)
        self.egress = egress
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.logger = logger
    }

    /// The channel URL, as is, when it is on `*.notify.live.net` (or the configured endpoint's origin).
    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let token = input.token?.scalarText, channelRule.accepts(token) else { return nil }
        return NormalizedToken(token: token)
    }

    public func variant(lang: String?, silent: Bool, badge: Int?, version: String?) -> MessageVariant {
        renderer.variant(lang: lang, silent: silent, version: version)
    }

    public func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<MPNSMessage> {
        renderer.render(notification, for: variant)
    }

    /// A payload the sender prepared (suj-pusher's WPNS part, compat.md §2.7): its body as is, with
    /// its `x-notificationclass` (required), `x-windowsphone-target` and `x-messageid` headers.
    public func render(_ payload: PreparedPayload) -> RenderResult<MPNSMessage> {
        guard let notificationClass = payload.headers["x-notificationclass"], !notificationClass.isEmpty else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "MissingNotificationClass"))
        }
        var headers = ["X-NotificationClass": notificationClass]
        if let target = payload.headers["x-windowsphone-target"] { headers["X-WindowsPhone-Target"] = target }
        if let messageID = payload.headers["x-messageid"] { headers["X-MessageID"] = messageID }
        return .send(MPNSMessage(body: ByteBuffer(string: payload.body), type: .raw, preparedHeaders: headers))
    }

    public var hasSubscriberDestinations: Bool { true }

    /// Channel URIs name one of the service's many hosts; each is limited on its own.
    public func destinationHost(of token: String) -> String? {
        DestinationHost.of(token)
    }

    public var destinationPolicy: DestinationPolicy? { egress?.policy }

    public func send(_ message: MPNSMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        var request = HTTPClientRequest(url: target.token)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/*")
        if let prepared = message.preparedHeaders {
            request.headers.add(name: "Content-Type", value: "text/xml; charset=utf-8")
            for (name, value) in prepared.sorted(by: { $0.key < $1.key }) { request.headers.add(name: name, value: value) }
        } else {
            request.headers.add(name: "Content-Type", value: "text/xml")
            request.headers.add(name: "X-NotificationClass", value: String(message.type.notificationClass))
            if let target = message.type.target { request.headers.add(name: "X-WindowsPhone-Target", value: target) }
        }
        request.body = .bytes(message.body)
        do {
            let response = try await client.execute(request, timeout: TimeAmount(settings.http.requestTimeout))
            for try await _ in response.body {}
            let headers = response.headers
            let outcome = MPNSResponseTable.outcome(
                status: Int(response.status.code),
                notificationStatus: headers.first(name: "X-NotificationStatus"),
                subscriptionStatus: headers.first(name: "X-SubscriptionStatus"),
                deviceConnectionStatus: headers.first(name: "X-DeviceConnectionStatus"),
                retryAfter: headers.first(name: "Retry-After"))
            if outcome.outcome != .delivered {
                logger.debug(
                    "MPNS did not accept a notification",
                    metadata: [
                        "subscriber": "\(target.subscriberID?.rawValue ?? "-")", "status": "\(response.status.code)",
                        "outcome": "\(outcome.outcome)", "reason": "\(outcome.reason ?? "-")",
                    ])
            }
            return outcome
        } catch {
            return OutboundErrorReason.outcome(for: error)
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
        await egress?.close()
    }
}
