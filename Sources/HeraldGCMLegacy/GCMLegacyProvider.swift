import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore
import NIOSSL

/// A provider of kind `gcm-legacy`: the legacy GCM / FCM HTTP API (`Authorization: key=`, `registration_ids`
/// multicast), for proxies and gateways that still speak it; Google's own endpoints are shut down.
///
/// Concurrent sends of one rendered message are gathered by a ``GCMLegacyBatcher`` into requests of up to
/// ``Settings/batchSize`` registration ids, and each send gets its own token's result.
public struct GCMLegacyProvider: PushProvider {
    /// Settings of one `gcm-legacy` provider.
    public struct Settings: Sendable {
        /// The send endpoint (`endpoint`), e.g. `https://gcm-proxy.example/gcm/send`.
        public var endpoint: String
        /// The server key (`api_key` / `api_key_file`).
        public var apiKey: String
        /// Time allowed to establish a connection. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed for one request, response included (`timeout`). Default 30 s.
        public var requestTimeout: Duration = .seconds(30)
        /// Registration ids per request (`batch_size`), 1 to 1000. Default 1000.
        public var batchSize = 1000
        /// How long a batch waits to fill before it is sent (`batch_delay`). Default 10 ms.
        public var batchDelay: Duration = .milliseconds(10)
        /// Deliveries in flight at once (`max_concurrent`). Default 2 × ``batchSize``, so that one batch can fill
        /// while the previous one is in flight.
        public var maxConcurrentDeliveries: Int?

        /// Creates settings for `endpoint` with `apiKey`.
        public init(endpoint: String, apiKey: String) {
            self.endpoint = endpoint
            self.apiKey = apiKey
        }
    }

    public typealias Message = GCMLegacyMessage

    /// The most registration ids GCM accepts in one request.
    public static let maximumBatchSize = 1000

    public let name: String
    public var kind: String { "gcm-legacy" }
    public var maxConcurrentDeliveries: Int { settings.maxConcurrentDeliveries ?? 2 * settings.batchSize }

    private let settings: Settings
    private let renderer = GCMLegacyRenderer()
    private let client: HTTPClient
    private let batcher: GCMLegacyBatcher
    private let logger: Logger
    /// The store's clock, so rendered expirations agree with the pipeline's time.
    private let clock: WallClock

    /// Creates a provider with its own HTTP client; `tls` is the client configuration (trust roots); renders are
    /// stamped with `clock`.
    public init(name: String, settings: Settings, tls: TLSConfiguration, logger: Logger, clock: WallClock = .system) {
        self.name = name
        self.settings = settings
        self.clock = clock
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.logger = logger
        let client = OutboundHTTPClient.make(.init(connectTimeout: settings.connectTimeout), tls: tls)
        self.client = client
        let sender = GCMLegacySender(
            client: client, endpoint: settings.endpoint, apiKey: settings.apiKey, timeout: settings.requestTimeout, logger: logger)
        self.batcher = GCMLegacyBatcher(batchSize: settings.batchSize, batchDelay: settings.batchDelay) { message, targets in
            await sender.send(message, to: targets)
        }
    }

    /// Any non-empty token of at most 4096 bytes without white space or control characters, as is.
    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let token = input.token?.scalarText, Self.isRegistrationID(token) else { return nil }
        return NormalizedToken(token: token)
    }

    /// Whether `text` can be a registration id.
    static func isRegistrationID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 4096 else { return false }
        return !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }

    public func variant(lang: String?, silent: Bool, badge: Int?, version: String?) -> MessageVariant {
        MessageVariant(lang: lang, silent: silent)
    }

    /// A legacy GCM request as the sender made it, without `registration_ids`: its members are
    /// sent after the batch's ids (`{"data":{...},"collapse_key":"..."}`).
    public func render(_ payload: PreparedPayload) -> RenderResult<GCMLegacyMessage> {
        guard let members = payload.jsonObjectMembers, !members.isEmpty,
            case .object(let fields)? = try? JSONBodyParser.parse(payload.body),
            !fields.contains(where: { ["registration_ids", "to"].contains($0.key) })
        else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload"))
        }
        return .send(GCMLegacyMessage(members: String(members)))
    }

    public func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<GCMLegacyMessage> {
        let skipped = notification.data.keys.filter(FCMData.isReserved)
        if !skipped.isEmpty {
            logger.debug("data keys reserved by GCM are not sent", metadata: ["keys": "\(skipped.joined(separator: ","))"])
        }
        return renderer.render(notification, for: variant, now: clock.nowSeconds())
    }

    public func send(_ message: GCMLegacyMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        let result = await batcher.submit(message, to: target)
        guard let canonical = result.canonicalRegistrationID, canonical != target.token else { return result.outcome }
        // The app registered again under a new id: the pipeline stores it in place of the old token.
        var outcome = result.outcome
        outcome.replacementToken = canonical
        return outcome
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
