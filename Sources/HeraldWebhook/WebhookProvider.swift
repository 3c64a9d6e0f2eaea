import AsyncHTTPClient
import Foundation
import HeraldCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// A provider of kind `http`: POSTs the event JSON (§10.3) to each subscriber's URL.
public struct WebhookProvider: PushProvider {
    /// Timeouts and limits of a webhook provider.
    public struct Settings: Sendable {
        /// Time allowed to establish a connection. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed for the whole request, response included. Default 30 s.
        public var requestTimeout: Duration = .seconds(30)
        /// Deliveries in flight at once. Default 256.
        public var maxConcurrentDeliveries = 256
        /// HTTP/1.1 connections kept per host; many subscribers often share one host. Default 64.
        public var maxConnectionsPerHost = 64

        /// The defaults.
        public init() {}
    }

    /// The rendered body, shared by every subscriber of one variant.
    public typealias Message = ByteBuffer

    public let name: String
    public var kind: String { "http" }
    public var maxConcurrentDeliveries: Int { settings.maxConcurrentDeliveries }
    /// A webhook that stays unreachable is the subscriber's problem (§11.1).
    public var exhaustedRetriesCountAgainstSubscriber: Bool { true }

    private let settings: Settings
    private let client: HTTPClient
    private let egress: EgressGuard?
    /// Signs each request (Standard Webhooks) when the provider has signing secrets.
    private let signer: WebhookSigner?
    private let logger: Logger
    /// The store's clock, which `webhook-timestamp` is stamped with.
    private let clock: WallClock

    /// The most of an answer's body read; the rest is discarded with the connection, so a hostile receiver
    /// cannot hold a delivery slot or grow memory by answering without end.
    static let maxAnswerBytes = 64 * 1024

    /// Creates a provider with its own HTTP client, connecting through `egress` when given and signing
    /// every request with `signer` when given, with timestamps read from `clock`.
    public init(
        name: String, settings: Settings = Settings(), tls: TLSConfiguration, egress: EgressGuard? = nil, signer: WebhookSigner? = nil,
        logger: Logger, clock: WallClock = .system
    ) {
        self.name = name
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.egress = egress
        self.signer = signer
        self.client = OutboundHTTPClient.make(
            .init(connectTimeout: settings.connectTimeout, maxConnectionsPerHost: settings.maxConnectionsPerHost), tls: tls, egress: egress)
    }

    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let token = input.token?.scalarText, Self.isWebhookURL(token) else { return nil }
        return NormalizedToken(token: token)
    }

    public var hasSubscriberDestinations: Bool { true }

    /// Each subscriber names its own receiver.
    public func destinationHost(of token: String) -> String? {
        DestinationHost.of(token)
    }

    public var destinationPolicy: DestinationPolicy? { egress?.policy }

    /// Whether `text` is an absolute `http` or `https` URL with a host.
    static func isWebhookURL(_ text: String) -> Bool {
        guard text.utf8.count <= 4096, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return false }
        return true
    }

    public func variant(lang: String?, silent: Bool, badge: Int?, version: String?) -> MessageVariant {
        // Every language goes in the body, so only silence changes what is sent.
        MessageVariant(silent: silent)
    }

    /// A prepared body is posted as it is: it must be JSON, as every webhook body is.
    public func render(_ payload: PreparedPayload) -> RenderResult<ByteBuffer> {
        guard (try? JSONBodyParser.parse(payload.body)) != nil else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload"))
        }
        return .send(ByteBuffer(string: payload.body))
    }

    public func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<ByteBuffer> {
        .send(ByteBuffer(string: notification.eventJSON(includeText: !variant.silent)))
    }

    public func send(_ message: ByteBuffer, to target: DeliveryTarget) async -> DeliveryOutcome {
        var request = HTTPClientRequest(url: target.token)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        if let signer {
            // Signed per attempt: the id stays the delivery's, the timestamp is the attempt's, so a receiver
            // can refuse stale requests and still deduplicate retries by id.
            let id = WebhookSigner.messageID(for: target)
            let timestamp = clock.nowSeconds()
            request.headers.add(name: "webhook-id", value: id)
            request.headers.add(name: "webhook-timestamp", value: String(timestamp))
            request.headers.add(name: "webhook-signature", value: signer.signature(id: id, timestamp: timestamp, body: message))
        }
        request.body = .bytes(message)
        do {
            let response = try await client.execute(request, timeout: .init(settings.requestTimeout))
            // The body is not used, but a short one is drained so the connection can be reused; leaving a long
            // one unread drops the connection instead.
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read > Self.maxAnswerBytes { break }
            }
            return Self.outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
        } catch {
            return OutboundErrorReason.outcome(for: error)
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
        await egress?.close()
    }

    /// The webhook answer table (§11.2): 2xx delivered; 408, 429, 5xx transient; anything else a subscriber failure.
    static func outcome(status: Int, retryAfter: String?) -> DeliveryOutcome {
        switch status {
        case 200..<300:
            return .delivered
        case 408, 429, 500..<600:
            return DeliveryOutcome(.transient, reason: "HTTP \(status)", status: status, retryAfter: RetryAfter.parse(retryAfter))
        default:
            return DeliveryOutcome(.subscriberFailure, reason: "HTTP \(status)", status: status)
        }
    }
}
