import Foundation
import HeraldCore
import HeraldIntake
import HeraldStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The subset of ntfy's HTTP API that UnifiedPush distributors and app servers use (issue 42):
/// `GET /<topic>?up=1` (discovery), `POST`/`PUT /<topic>` (an RFC 8030 push), and
/// `GET /<topic>[,<topic>…]/json` and `/sse` (subscriptions, `since=` and `poll=1`).
struct UnifiedPushRoutes: Sendable {
    let settings: UnifiedPushSettings
    let intake: Intake
    let hub: UnifiedPushHub
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
        router.get("/:topic/sse") { request, context -> Response in
            try await subscription(request, topics: try Self.topics(context.parameters.get("topic") ?? ""), sse: true)
        }
    }

    // MARK: - Pushes

    /// Stores the message (or, with `TTL: 0`, hands it to the subscriptions connected now) and
    /// answers 201 with the `TTL` kept and the message's `Location`.
    func push(_ request: Request, topic: String) async throws -> Response {
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
                throw HTTPError(.unauthorized, message: "This topic takes pushes signed with its VAPID key only")
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
        response.headers[.location] = "\(settings.baseURL)/\(topic)/json?poll=1&since=\(message.id)"
        return response
    }

    // MARK: - Subscriptions

    /// One JSON object per line (`/json`) or Server-Sent Events (`/sse`): `open`, then the stored
    /// messages `since` asks for, then live ones, with a `keepalive` every `keepalive`; with
    /// `poll=1`, the stored messages and the end.
    func subscription(_ request: Request, topics: [String], sse: Bool) async throws -> Response {
        let query = request.uri.queryParameters
        let vapidKey = query["vapid"].map(String.init)
        if let vapidKey, Base64URL.decode(vapidKey)?.count != 65 {
            throw HTTPError(.badRequest, message: "vapid is an application server's public key: 65 bytes, base64url")
        }
        let poll = query["poll"] == "1" || query["poll"] == "true"
        let now = intake.clock.nowSeconds()
        let start: PushCursor
        switch query["since"].map(String.init) {
        case nil: start = poll ? .all : .since(now)
        case let since?: start = try Self.cursor(since, now: now)
        }
        let bound = try await answering { () async throws(IntakeError) in try await intake.subscribeToPushTopics(topics, vapidKey: vapidKey) }
        if let vapidKey, bound.contains(where: { $0.vapidKey.map { !VAPIDAuthorization.sameKey($0, vapidKey) } ?? false }) {
            throw HTTPError(.conflict, message: "A topic is bound to another VAPID key")
        }
        let stream = UnifiedPushStream(
            topics: topics, intake: intake, keepalive: settings.keepalive, sse: sse, opened: now,
            wakes: poll ? nil : hub.subscribe(to: topics))
        let body = ResponseBody { writer in
            try await stream.run(from: start, writer: &writer)
        }
        let contentType = sse ? "text/event-stream" : "application/x-ndjson"
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"], body: body)
    }

    // MARK: - Parts

    /// `since=`: `all`, a Unix time (digits), a duration back from now (`10m`, `2h`, `30s`, `1d`), or a message id.
    static func cursor(_ since: String, now: Int64) throws(HTTPError) -> PushCursor {
        if since == "all" { return .all }
        if let time = Int64(since) { return .since(time) }
        if let unit = since.last, let count = Int64(since.dropLast()), count >= 0 {
            switch unit {
            case "s": return .since(now - count)
            case "m": return .since(now - count * 60)
            case "h": return .since(now - count * 3_600)
            case "d": return .since(now - count * 86_400)
            default: break
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
