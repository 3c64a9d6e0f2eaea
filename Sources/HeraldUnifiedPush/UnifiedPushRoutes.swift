import Crypto
import Foundation
import HeraldCore
import HeraldIntake
import HeraldStore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The subset of ntfy's HTTP API that UnifiedPush distributors and app servers use (issue 42):
/// `GET /<topic>?up=1` (discovery), `POST`/`PUT /<topic>` (an RFC 8030 push), and
/// `GET /<topic>[,<topic>…]/json` and `/sse` (subscriptions, `since=` and `poll=1`).
struct UnifiedPushRoutes: Sendable {
    let settings: UnifiedPushSettings
    let intake: Intake
    let hub: UnifiedPushHub
    /// `herald_unifiedpush_requests_total{kind,result,reason}`: pushes accepted or refused (by
    /// status), subscriptions opened (by form).
    let counter: FrontEndRequestCounter
    /// `unifiedpush.rate` per topic (the `publish` realm's bucket kind, keyed by topic).
    let limiter: RateLimiter
    let logger: Logger

    /// The most bytes a push may carry (RFC 8030's 4096, as every push service takes).
    static let maxBodyBytes = 4096
    /// Messages read from the store at a time.
    static let pageSize = 500
    /// How often a subscription reads the store without being woken: for messages other nodes accepted.
    static let pollInterval = Duration.seconds(1)

    func register(on router: Router<BasicRequestContext>) {
        router.get("/:topic") { request, context -> Response in
            let topic = try Self.topic(context.parameters.get("topic") ?? "")
            guard request.uri.queryParameters["up"] == "1" else {
                throw HTTPError(.notFound, message: "Not found: subscribe with /\(topic)/json or /\(topic)/sse")
            }
            return Self.json(.ok, #"{"unifiedpush":{"version":1}}"#)
        }
        for method in [HTTPRequest.Method.post, .put] {
            router.on("/:topic", method: method) { request, context -> Response in
                try await push(request, topic: try Self.topic(context.parameters.get("topic") ?? ""))
            }
        }
        router.get("/:topic/json") { request, context -> Response in
            try await subscription(request, topics: try Self.topics(context.parameters.get("topic") ?? ""), sse: false)
        }
        // A `/ws` request reaches the router only when it was no upgrade, or one refused.
        router.get("/:topic/ws") { _, _ -> Response in
            throw HTTPError(.badRequest, message: "A WebSocket subscription: an upgrade request, to topics that may be subscribed")
        }
        router.get("/:topic/sse") { request, context -> Response in
            try await subscription(request, topics: try Self.topics(context.parameters.get("topic") ?? ""), sse: true)
        }
    }

    // MARK: - Pushes

    /// Stores the message (or, with `TTL: 0`, hands it to the subscriptions connected now) and
    /// answers 201 with the `TTL` kept and the message's `Location`.
    func push(_ request: Request, topic: String) async throws -> Response {
        do {
            let response = try await accept(request, topic: topic)
            counter.count("push", result: "accepted")
            return response
        } catch let error as HTTPError {
            counter.count("push", result: "refused", reason: String(error.status.code))
            throw error
        }
    }

    private func accept(_ request: Request, topic: String) async throws -> Response {
        if case .refused(let seconds) = limiter.admit(.publish, client: .topic(topic)) {
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(seconds)], message: "Too many pushes to this topic")
        }
        let now = intake.clock.nowSeconds()
        guard let stored = try await answering({ () async throws(IntakeError) in try await intake.pushTopic(topic) }),
            stored.lastSubscribed >= now - settings.topicIdle || hub.isConnected(topic)
        else {
            // RFC 8030 §7.3: the app server drops an endpoint that answers 404.
            throw HTTPError(.notFound, message: "No subscription for this topic")
        }
        if let key = stored.vapidKey {
            guard let header = request.headers[.authorization], let authorization = VAPIDAuthorization(header: header),
                authorization.isValid(boundKey: key, origin: settings.origin, now: now)
            else {
                throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "vapid"], message: "This topic takes pushes signed with its VAPID key only")
            }
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch {
            throw HTTPError(.contentTooLarge, message: "A push carries at most \(Self.maxBodyBytes) bytes")
        }
        guard buffer.readableBytes > 0 else { throw HTTPError(.badRequest, message: "A push needs a body") }
        var ttl = settings.maxTTL
        if let text = request.headers[HTTPField.Name("TTL")!] {
            guard let asked = Int64(text.trimmingCharacters(in: .whitespaces)), asked >= 0 else {
                throw HTTPError(.badRequest, message: "TTL is a number of seconds")
            }
            ttl = min(asked, settings.maxTTL)
        }
        let urgency = request.headers[HTTPField.Name("Urgency")!].map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let urgency, !["very-low", "low", "normal", "high"].contains(urgency) {
            throw HTTPError(.badRequest, message: "Urgency is very-low, low, normal or high")
        }
        let replaceKey = request.headers[HTTPField.Name("Topic")!]
        if let replaceKey, !(1...32).contains(replaceKey.utf8.count) || !replaceKey.utf8.allSatisfy(Self.isTopicByte) {
            throw HTTPError(.badRequest, message: "Topic is 1 to 32 URL-safe base64 characters")
        }
        let message = PushMessage(
            id: Self.newMessageID(), sequence: 0, topic: topic, time: now, expiresAt: now + ttl, body: Array(buffer.readableBytesView),
            urgency: urgency, replaceKey: replaceKey)
        if ttl == 0 {
            hub.wake(topic, with: .transient(message))
        } else {
            try await answering { () async throws(IntakeError) in try await intake.storePushMessage(message) }
            hub.wake(topic, with: .stored)
        }
        var response = Self.json(.created, UnifiedPushEvent.message(message))
        response.headers[HTTPField.Name("TTL")!] = String(ttl)
        // What was stored from this message's second on: this message among them.
        response.headers[.location] = "\(settings.baseURL)/\(topic)/json?poll=1&since=\(message.time)"
        return response
    }

    // MARK: - Subscriptions

    /// One JSON object per line (`/json`) or Server-Sent Events (`/sse`): `open`, then the stored
    /// messages `since` asks for, then live ones, with a `keepalive` every `keepalive`; with
    /// `poll=1`, the stored messages and the end.
    func subscription(_ request: Request, topics: [String], sse: Bool) async throws -> Response {
        let (stream, start) = try await open(topics: topics, query: request.uri.queryParameters, framing: sse ? .serverSentEvents : .lines)
        let body = ResponseBody { writer in
            try await stream.run(from: start) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        let contentType = sse ? "text/event-stream" : "application/x-ndjson"
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"], body: body)
    }

    /// Subscribes to `topics` as the query asks (`vapid`, `poll`, `since`) and returns the stream
    /// of events and where it starts; every refusal is thrown before anything is sent.
    func open(topics: [String], query: Hummingbird.Parameters, framing: UnifiedPushStream.Framing) async throws -> (UnifiedPushStream, PushCursor) {
        let vapidKey = query["vapid"].map(String.init)
        if let vapidKey {
            guard let bytes = Base64URL.decode(vapidKey), bytes.count == 65, (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil else {
                throw HTTPError(.badRequest, message: "vapid is an application server's P-256 public key: 65 bytes, base64url")
            }
            // Refused before anything is written: no topic of the request is bound by a refused one.
            for topic in topics {
                let stored = try await answering { () async throws(IntakeError) in try await intake.pushTopic(topic) }
                if let bound = stored?.vapidKey, !VAPIDAuthorization.sameKey(bound, vapidKey) {
                    throw HTTPError(.conflict, message: "The topic \(topic) is bound to another VAPID key")
                }
            }
        }
        let poll = query["poll"] == "1" || query["poll"] == "true"
        let now = intake.clock.nowSeconds()
        let start: PushCursor
        switch query["since"].map(String.init) {
        case nil: start = poll ? .all : .since(now)
        case let since?: start = try Self.cursor(since, now: now)
        }
        try await answering { () async throws(IntakeError) in try await intake.subscribeToPushTopics(topics, vapidKey: vapidKey) }
        let stream = UnifiedPushStream(
            topics: topics, intake: intake, keepalive: settings.keepalive, framing: framing, opened: now,
            wakes: poll ? nil : hub.subscribe(to: topics))
        counter.count("subscription", result: poll ? "poll" : "\(framing)")
        return (stream, start)
    }

    /// `GET /<topics>/ws` upgraded to a WebSocket: the `/json` events, one per text message.
    /// Anything else, or a subscription refused, is no upgrade (the router answers it).
    func webSocketUpgrade(_ head: HTTPRequest) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let target = head.path else { return .dontUpgrade }
        let uri = URI(target)
        guard uri.path.hasSuffix("/ws"), let topics = try? Self.topics(String(uri.path.dropFirst().dropLast(3))),
            let (stream, start) = try? await open(topics: topics, query: uri.queryParameters, framing: .webSocket)
        else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The client sends nothing but its close: when it does, the events stop at once.
                group.addTask {
                    for try await _ in inbound {}
                    stream.close()
                }
                group.addTask {
                    try await stream.run(from: start) { buffer in try await outbound.write(.text(String(buffer: buffer))) }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    // MARK: - Parts

    /// `since=`: `all`, a Unix time (digits), a duration back from now (`10m`, `2h`, `30s`, `1d`), or a message id.
    static func cursor(_ since: String, now: Int64) throws(HTTPError) -> PushCursor {
        if since == "all" { return .all }
        if let time = Int64(since) { return .since(time) }
        if let unit = since.last, let count = Int64(since.dropLast()), count >= 0 {
            let seconds: Int64? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3_600
            case "d": 86_400
            default: nil
            }
            if let seconds {
                // Further back than anything kept is everything (and no overflow).
                let (back, overflow) = count.multipliedReportingOverflow(by: seconds)
                return overflow || back > now ? .all : .since(now - back)
            }
        }
        guard (1...64).contains(since.utf8.count), since.utf8.allSatisfy(isTopicByte) else {
            throw HTTPError(.badRequest, message: "since is all, a Unix time, a duration or a message id")
        }
        return .afterID(since)
    }

    /// A topic: `[-_A-Za-z0-9]{1,64}`.
    static func topic(_ text: String) throws(HTTPError) -> String {
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy(isTopicByte) else {
            throw HTTPError(.badRequest, message: "A topic is 1 to 64 letters, digits, - or _")
        }
        return text
    }

    /// Topics separated by commas.
    static func topics(_ text: String) throws(HTTPError) -> [String] {
        var topics: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = try topic(String(part))
            if !topics.contains(name) { topics.append(name) }
        }
        return topics
    }

    static func isTopicByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    /// A message id: opaque and never all digits (so that `since=` tells it from a Unix time).
    static func newMessageID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return "m" + String((0..<11).map { _ in alphabet.randomElement()! })
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Runs an intake operation; a refusal answers 503 (overloaded or the store away) or 400.
    @discardableResult
    private func answering<T>(_ operation: () async throws(IntakeError) -> T) async throws(HTTPError) -> T {
        do {
            return try await operation()
        } catch {
            switch error.code {
            case .invalidRequest: throw HTTPError(.badRequest, message: error.message)
            case .overloaded: throw HTTPError(.serviceUnavailable, headers: [.retryAfter: String(error.retryAfterSeconds ?? 1)], message: error.message)
            default: throw HTTPError(.serviceUnavailable, message: error.message)
            }
        }
    }
}
