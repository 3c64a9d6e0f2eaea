import Foundation
import HeraldCore
import HeraldHTTP2
import HTTPTypes
import Logging
import NIOCore

/// A provider of kind `apns`: one iOS/macOS app (topic) of one team, over Herald's HTTP/2 pool.
public struct APNsProvider: PushProvider {
    /// Settings of one `apns` provider.
    public struct Settings: Sendable {
        /// The bundle id (`apns-topic`, before any push-type suffix).
        public var topic: String?
        /// The `:authority` to send (Apple's host, or the configured endpoint's).
        public var authority: String
        /// Deliveries in flight at once.
        public var maxConcurrentDeliveries = 2000
        /// Deadline of each request.
        public var requestTimeout: Duration = .seconds(30)
        /// The environment the provider's pool sends to (`environment`). Default production.
        public var environment: APNsEnvironment = .production

        /// Creates settings.
        public init(topic: String?, authority: String) {
            self.topic = topic
            self.authority = authority
        }
    }

    public typealias Message = APNsMessage

    public let name: String
    public var kind: String { "apns" }
    public var countsBadges: Bool { true }
    public var maxConcurrentDeliveries: Int { settings.maxConcurrentDeliveries }

    private let settings: Settings
    private let renderer: APNsPayloadRenderer
    private let pool: HTTP2ConnectionPool
    /// The other environment's host, for notifications that ask for it; `nil` when an `endpoint` replaces
    /// Apple's hosts, which then receives everything (compat.md §6.4). No connection opens until one is sent.
    private let otherEnvironmentPool: HTTP2ConnectionPool?
    /// `nil` with certificate authentication.
    private let token: APNsProviderToken?
    private let requestIDs = APNsRequestIDGenerator()
    private let logger: Logger
    /// The store's clock, so rendered expirations agree with the pipeline's time.
    private let clock: WallClock
    /// The app's broadcast channels (token authentication and a topic); `nil` otherwise.
    let channels: APNsChannelManager?

    /// Creates a provider sending through `pool`, authenticated by `token` (or by the pool's client certificate);
    /// notifications for the environment other than `settings.environment` go through `otherEnvironmentPool`
    /// when there is one; renders are stamped with `clock`.
    public init(
        name: String, settings: Settings, renderer: APNsPayloadRenderer, pool: HTTP2ConnectionPool,
        otherEnvironmentPool: HTTP2ConnectionPool? = nil, token: APNsProviderToken?, logger: Logger, clock: WallClock = .system,
        channels: APNsChannelManager? = nil
    ) {
        self.channels = channels
        self.name = name
        self.settings = settings
        self.clock = clock
        self.renderer = renderer
        self.pool = pool
        self.otherEnvironmentPool = otherEnvironmentPool
        self.token = token
        self.logger = logger
    }

    public func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let text = input.token?.scalarText else { return nil }
        // A broadcast channel (iOS 18), for raw sends and channel publishes: `channel:<id>`.
        if text.hasPrefix(Self.channelPrefix) {
            return channels != nil && Self.isChannelID(text.dropFirst(Self.channelPrefix.count)) ? NormalizedToken(token: text) : nil
        }
        guard Self.isDeviceToken(text) else { return nil }
        return NormalizedToken(token: text.lowercased())
    }

    /// What a token naming a broadcast channel starts with.
    public static let channelPrefix = "channel:"

    /// A channel id as Apple makes them: base64, at most 255 characters.
    static func isChannelID(_ text: Substring) -> Bool {
        (1...255).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
                    || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    public var broadcastChannels: (any BroadcastChannels)? { channels }

    /// `^([0-9a-fA-F]{2}){32,100}$`: Apple says not to assume a length, only even-length hex.
    static func isDeviceToken(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count >= 64, bytes.count <= 200, bytes.count % 2 == 0 else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }

    /// An APNs payload as the sender made it (compat.md §1.2): the JSON body, and `apns-push-type`,
    /// `apns-priority`, `apns-expiration`, `apns-collapse-id`, `apns-topic` and `apns-id` from its
    /// headers, and the environment from ``PreparedPayload/apnsEnvironmentHeader``. Without a push type or priority header,
    /// both are derived from the `aps` object: a Live Activity update (`event` with `content-state`)
    /// → `liveactivity`, 10, stamped with `timestamp` (the time the send was accepted) when it has
    /// none; `alert`, `sound` or `badge` → `alert`, 10; otherwise `content-available` → `background`, 5;
    /// otherwise `alert`, 5. A `background` notification is always sent with priority 5. Live
    /// Activity pushes need token authentication: with a certificate they fail before sending.
    public func render(_ payload: PreparedPayload) -> RenderResult<APNsMessage> {
        guard case .object(let members)? = try? JSONBodyParser.parse(payload.body) else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload"))
        }
        var aps = members.first { $0.key == "aps" }?.value.objectMembers ?? []
        let alerting = aps.contains { ["alert", "sound", "badge"].contains($0.key) }
        let liveActivity = Self.isLiveActivityUpdate(aps)
        let derived: (APNsPushType, Int) =
            liveActivity ? (.liveactivity, 10)
            : alerting ? (.alert, 10) : aps.contains { $0.key == "content-available" } ? (.background, 5) : (.alert, 5)
        let pushType = payload.headers["apns-push-type"].flatMap(APNsPushType.init(rawValue:)) ?? derived.0
        if pushType == .liveactivity, token == nil { return .fail(Self.liveActivityNeedsTokens) }
        var body = ByteBuffer(string: payload.body)
        if pushType == .liveactivity, !aps.contains(where: { $0.key == "timestamp" }) {
            // Apple orders updates by `timestamp`: the time the intake accepted the send, the same on every attempt.
            aps.append((key: "timestamp", value: .number(String(payload.acceptedAt ?? clock.nowSeconds()))))
            var rewritten = members
            if let index = rewritten.firstIndex(where: { $0.key == "aps" }) { rewritten[index].value = .object(aps) }
            body = ByteBuffer(string: BodyValue.object(rewritten).jsonText)
        }
        guard body.readableBytes <= pushType.maxPayloadBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        var priority = payload.integerHeader("apns-priority").map(Int.init) ?? (pushType == derived.0 ? derived.1 : 10)
        if pushType == .background { priority = 5 }  // APNs refuses 10 for a background notification
        var message = APNsMessage(
            body: body, pushType: pushType, priority: priority,
            expiration: payload.integerHeader("apns-expiration") ?? payload.expiration, collapseID: payload.headers["apns-collapse-id"])
        message.topic = payload.headers["apns-topic"]
        message.requestID = payload.headers["apns-id"]
        message.environment = payload.headers[PreparedPayload.apnsEnvironmentHeader].flatMap(APNsEnvironment.init(rawValue:))
        let authorization = token?.cachedAuthorization()
        message.preparedHeaders = preparedHeaders(for: message, authorization: authorization)
        message.preparedAuthorization = authorization
        return .send(message)
    }

    public func render(_ event: PublishedEvent, for variant: MessageVariant) -> RenderResult<APNsMessage> {
        if event.liveActivity != nil, token == nil { return .fail(Self.liveActivityNeedsTokens) }
        var result = renderer.render(event, for: variant, now: clock.nowSeconds())
        if case .send(var message) = result {
            // Rendered once per variant and sent to many devices: the fields they share are built here,
            // with the provider token as it is now (a send checks that it still is).
            let authorization = token?.cachedAuthorization()
            message.preparedHeaders = preparedHeaders(for: message, authorization: authorization)
            message.preparedAuthorization = authorization
            result = .send(message)
        }
        return result
    }

    /// One push to every follower of a broadcast channel: `POST /4/broadcasts/apps/<bundle>` with
    /// `apns-channel-id` and no `apns-topic` (the path names the app).
    private func broadcastRequest(_ message: APNsMessage, channel: String, authorization: String?) -> HTTP2Request {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        headers[APNsChannelManager.channelIDField] = channel
        headers[.apnsPushType] = message.pushType.rawValue
        headers[.apnsPriority] = String(message.priority)
        // Apple requires an expiration on broadcasts; 0 (deliver once, store nothing) when the sender gave none.
        headers[.apnsExpiration] = String(message.expiration ?? 0)
        headers[.contentType] = "application/json"
        return HTTP2Request(
            method: .post, path: "/4/broadcasts/apps/\(settings.topic ?? "")", headers: headers,
            uniqueField: HTTP2UniqueField(name: .apnsRequestID, value: message.requestID ?? requestIDs.next()), body: message.body)
    }

    /// Apple accepts Live Activity pushes with token authentication only: a provider with a
    /// certificate refuses them before sending, naming why.
    static let liveActivityNeedsTokens = DeliveryOutcome(.messageFailure, reason: "LiveActivityNeedsTokenAuthentication")

    /// Whether an `aps` dictionary is a Live Activity update: an `event` of start, update or end,
    /// with a `content-state` (which only `end` may leave out).
    static func isLiveActivityUpdate(_ aps: [(key: String, value: BodyValue)]) -> Bool {
        guard case .string(let event)? = aps.first(where: { $0.key == "event" })?.value,
            let kind = LiveActivity.Event(rawValue: event)
        else { return false }
        return kind == .end || aps.contains { $0.key == "content-state" }
    }

    /// The fields every request of `message` carries; only the path and `apns-id` vary (and
    /// `authorization`, when the token changes after rendering).
    private func preparedHeaders(for message: APNsMessage, authorization: String?) -> HTTP2PreparedHeaders {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        headers[.apnsPushType] = message.pushType.rawValue
        headers[.apnsPriority] = String(message.priority)
        if let topic = message.topic ?? settings.topic.map({ $0 + message.pushType.topicSuffix }) { headers[.apnsTopic] = topic }
        if let expiration = message.expiration { headers[.apnsExpiration] = String(expiration) }
        if let collapseID = message.collapseID { headers[.apnsCollapseID] = collapseID }
        headers[.contentType] = "application/json"
        return HTTP2PreparedHeaders(headers)
    }

    /// Sends a page of deliveries as one batch through the pool; answers `ExpiredProviderToken`
    /// are sent once more, together, with a new token on new connections.
    public func send(
        _ deliveries: [(message: APNsMessage, target: DeliveryTarget)], report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        guard !deliveries.isEmpty else { return }
        let expired = DeliveryIndexList()
        let tokenAuthenticated = token != nil
        await sendBatch(deliveries, indices: Array(deliveries.indices)) { index, outcome in
            if tokenAuthenticated, outcome.reason == APNsResponseTable.expiredProviderToken {
                expired.append(index)
            } else {
                report(index, outcome)
            }
        }
        let retry = expired.indices
        guard !retry.isEmpty, let token else { return }
        // An expired token leaves the connection unusable: new token, new connections, one retry.
        do {
            try await token.refreshAfterRejection()
        } catch {
            let outcome = DeliveryOutcome(.configurationFailure, reason: "cannot sign provider token: \(error)")
            for index in retry { report(index, outcome) }
            return
        }
        pool.resetConnections()
        otherEnvironmentPool?.resetConnections()
        await sendBatch(deliveries, indices: retry, report: report)
    }

    public func send(_ message: APNsMessage, to target: DeliveryTarget) async -> DeliveryOutcome {
        await sendAsBatch(message, to: target)
    }

    /// Sends `deliveries[indices]`, each through the pool of its environment, reporting outcomes by index in
    /// `deliveries`.
    private func sendBatch(
        _ deliveries: [(message: APNsMessage, target: DeliveryTarget)], indices: [Int],
        report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        guard let otherEnvironmentPool else {
            return await sendBatch(deliveries, indices: indices, through: pool, report: report)
        }
        let elsewhere = indices.filter { deliveries[$0].message.environment.map { $0 != settings.environment } ?? false }
        guard !elsewhere.isEmpty else {
            return await sendBatch(deliveries, indices: indices, through: pool, report: report)
        }
        let here = indices.filter { deliveries[$0].message.environment.map { $0 == settings.environment } ?? true }
        async let sentHere: Void = sendBatch(deliveries, indices: here, through: pool, report: report)
        await sendBatch(deliveries, indices: elsewhere, through: otherEnvironmentPool, report: report)
        await sentHere
    }

    /// Sends `deliveries[indices]` through `pool`, reporting outcomes by index in `deliveries`.
    private func sendBatch(
        _ deliveries: [(message: APNsMessage, target: DeliveryTarget)], indices: [Int], through pool: HTTP2ConnectionPool,
        report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        guard !indices.isEmpty else { return }
        var authorization: String?
        if let token {
            do {
                authorization = try await token.authorization()
            } catch {
                let outcome = DeliveryOutcome(.configurationFailure, reason: "cannot sign provider token: \(error)")
                for index in indices { report(index, outcome) }
                return
            }
        }
        // Messages rendered before the current token (the first pages after a start or a token
        // refresh) have their shared fields prepared again, once per distinct set in the batch.
        var reprepared: (fields: SharedFields, headers: HTTP2PreparedHeaders)?
        let requests = indices.map { index -> HTTP2Request in
            let message = deliveries[index].message
            var prepared = message.preparedHeaders
            if prepared == nil || authorization != message.preparedAuthorization {
                let fields = SharedFields(message)
                if let reprepared, reprepared.fields == fields {
                    prepared = reprepared.headers
                } else {
                    let headers = preparedHeaders(for: message, authorization: authorization)
                    reprepared = (fields, headers)
                    prepared = headers
                }
            }
            let target = deliveries[index].target.token
            if target.hasPrefix(Self.channelPrefix) { return broadcastRequest(message, channel: String(target.dropFirst(Self.channelPrefix.count)), authorization: authorization) }
            return HTTP2Request(
                method: .post, path: "/3/device/" + target, preparedHeaders: prepared,
                // Unique per request: its value is kept out of the HPACK dynamic table, where it would
                // evict the shared fields; its name is indexed once per connection.
                uniqueField: HTTP2UniqueField(name: .apnsID, value: message.requestID ?? requestIDs.next()),
                body: message.body)
        }
        await pool.execute(requests, maxConcurrent: maxConcurrentDeliveries, deadline: settings.requestTimeout) { slot, result in
            report(indices[slot], Self.outcome(of: result))
        }
    }

    /// What ``preparedHeaders(for:authorization:)`` takes from a message besides the token.
    private struct SharedFields: Equatable {
        let pushType: APNsPushType
        let priority: Int
        let expiration: Int64?
        let collapseID: String?

        init(_ message: APNsMessage) {
            self.pushType = message.pushType
            self.priority = message.priority
            self.expiration = message.expiration
            self.collapseID = message.collapseID
        }
    }

    private static func outcome(of result: Result<HTTP2Response, HTTP2ClientError>) -> DeliveryOutcome {
        switch result {
        case .success(let response):
            // Success has no body and no header of interest: skip reading them.
            if response.status == 200 { return .delivered }
            return APNsResponseTable.outcome(
                status: response.status, body: Array(response.body.readableBytesView), retryAfter: response.headers[.retryAfter])
        case .failure(let error):
            return DeliveryOutcome(.transient, reason: error.reason)
        }
    }

    public var connectionStatistics: ProviderConnectionStatistics? {
        let statistics = pool.statistics
        return ProviderConnectionStatistics(
            connections: statistics.openConnections, streamsInUse: statistics.streamsInFlight, queued: statistics.queuedRequests)
    }

    /// Opens a connection to APNs if the pool has none, without waiting for it.
    public func warmUp() {
        pool.warmUp()
    }

    public func shutdown() async {
        await pool.shutdown()
        await otherEnvironmentPool?.shutdown()
    }
}

extension HTTPField.Name {
    static let apnsPushType = HTTPField.Name("apns-push-type")!
    static let apnsPriority = HTTPField.Name("apns-priority")!
    static let apnsTopic = HTTPField.Name("apns-topic")!
    static let apnsID = HTTPField.Name("apns-id")!
    static let apnsExpiration = HTTPField.Name("apns-expiration")!
    static let apnsCollapseID = HTTPField.Name("apns-collapse-id")!
    static let apnsRequestID = HTTPField.Name("apns-request-id")!
}
