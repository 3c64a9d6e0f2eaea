import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// A provider of kind `webpush`: encrypts each notification for the subscriber's browser (RFC 8291) and posts it to
/// the subscription's push service with VAPID (RFC 8292), as pushd-api.md §10.4 specifies.
public struct WebPushProvider: PushProvider, WebPushApplicationServer {
    /// Limits and defaults of a `webpush` provider.
    public struct Settings: Sendable {
        /// The `TTL` of notifications without `ttl` or `expiration`: one day, as pushd-api.md §10.4 shows.
        public static let defaultTTL = 86_400

        /// The `vapid_subject` contact (`mailto:` or `https:`), sent as the JWT `sub`.
        public var subject: String
        /// `TTL` when the event sets none (`ttl`). Default ``defaultTTL``.
        public var defaultTTL = Settings.defaultTTL
        /// Time allowed to establish a connection (`connect_timeout`). Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed for the whole request, response included (`timeout`). Default 30 s.
        public var requestTimeout: Duration = .seconds(30)
        /// Deliveries in flight at once (`max_concurrent`). Default 256.
        public var maxConcurrentDeliveries = 256
        /// HTTP/1.1 connections kept per push-service host (`max_connections_per_host`); every subscriber of one
        /// browser shares its vendor's host. Default 64.
        public var maxConnectionsPerHost = 64

        /// Settings with the defaults, for the contact `subject`.
        public init(subject: String) {
            self.subject = subject
        }
    }

    public typealias Message = WebPushMessage

    public let name: String
    public var kind: String { "webpush" }
    public var maxConcurrentDeliveries: Int { settings.maxConcurrentDeliveries }

    /// The VAPID public key, unpadded base64url: what a web page passes as `applicationServerKey` to subscribe
    /// (served by `GET /webpush/vapid-public-key`).
    public var vapidPublicKey: String { vapid.publicKey }

    private let settings: Settings
    private let renderer: WebPushRenderer
    private let vapid: VAPIDTokenCache
    private let client: HTTPClient
    private let egress: EgressGuard?
    private let logger: Logger
    /// The store's clock, so rendered expirations and VAPID `exp` agree with the pipeline's time.
    private let clock: WallClock

    /// Creates a provider signing with `key`, with its own HTTP client using `tls`, connecting through `egress` when given;
    /// renders and VAPID tokens are stamped with `clock`.
    public init(
        name: String, settings: Settings, key: VAPIDKey, tls: TLSConfiguration, egress: EgressGuard? = nil, logger: Logger,
        clock: WallClock = .system
    ) async throws {
        self.name = name
        self.settings = settings
        self.clock = clock
        self.renderer = WebPushRenderer(defaultTTL: settings.defaultTTL)
        self.vapid = try await VAPIDTokenCache(
            key: key, subject: settings.subject, now: { Date(timeIntervalSince1970: Double(clock.nowMillis()) / 1000) })
        self.logger = logger
        self.egress = egress
        self.client = OutboundHTTPClient.make(
            .init(connectTimeout: settings.connectTimeout, maxConnectionsPerHost: settings.maxConnectionsPerHost), tls: tls, egress: egress)
    }

    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let subscription = WebPushSubscription(registration: input) else { return nil }
        return NormalizedToken(token: subscription.canonicalJSON, identity: subscription.endpoint)
    }

    public func render(_ payload: PreparedPayload) -> RenderResult<WebPushMessage> {
        renderer.render(payload)
    }

    public func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<WebPushMessage> {
        renderer.render(notification, for: variant, now: clock.nowSeconds())
    }

    public var hasSubscriberDestinations: Bool { true }

    /// The endpoint's push service host (a browser vendor's, or a self-hosted one).
    public func destinationHost(of token: String) -> String? {
        WebPushSubscription(storedToken: token).flatMap { DestinationHost.of($0.endpoint) }
    }

    public var destinationPolicy: DestinationPolicy? { egress?.policy }

    public func send(_ message: WebPushMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        guard let subscription = WebPushSubscription(storedToken: target.token) else {
            // Only a token stored by something other than this kind can fail here; it can never be delivered.
            return DeliveryOutcome(.deadToken, reason: "InvalidSubscription")
        }
        let body: [UInt8]
        do {
            body = try WebPushEncryption.encrypt(message.plaintext, for: subscription)
        } catch {
            return DeliveryOutcome(error.isPlaintextTooLarge ? .messageFailure : .subscriberFailure, reason: error.description)
        }
        let origin = subscription.origin
        let authorization: String
        do {
            authorization = try await vapid.authorization(forOrigin: origin)
        } catch {
            logger.error("cannot sign VAPID token", metadata: ["provider": "\(name)", "error": "\(error)"])
            return DeliveryOutcome(.configurationFailure, reason: "cannot sign VAPID token")
        }

        var request = HTTPClientRequest(url: subscription.endpoint)
        request.method = .POST
        request.headers.add(name: "TTL", value: String(message.ttl))
        request.headers.add(name: "Urgency", value: message.urgency.rawValue)
        if let topic = message.topic { request.headers.add(name: "Topic", value: topic) }
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "Authorization", value: authorization)
        request.body = .bytes(ByteBuffer(bytes: body))
        let outcome: DeliveryOutcome
        do {
            let response = try await client.execute(request, timeout: .init(settings.requestTimeout))
            // Error bodies are short; the rest is drained so the connection can be reused.
            var answer: [UInt8] = []
            for try await chunk in response.body where answer.count < 4096 {
                answer += chunk.readableBytesView.prefix(4096 - answer.count)
            }
            outcome = WebPushResponseTable.outcome(
                status: Int(response.status.code), body: answer, retryAfter: response.headers.first(name: "Retry-After"))
        } catch {
            outcome = WebPushResponseTable.outcome(for: error)
        }
        if outcome.outcome != .delivered {
            // The origin names the push service without the endpoint's path, which is the subscription's secret.
            logger.debug(
                "web push not delivered",
                metadata: [
                    "provider": "\(name)", "origin": "\(origin)",
                    "outcome": "\(outcome.outcome.rawValue)", "reason": "\(outcome.reason ?? "")",
                ])
        }
        return outcome
    }

    public func shutdown() async {
        try? await client.shutdown()
        await egress?.close()
    }
}
