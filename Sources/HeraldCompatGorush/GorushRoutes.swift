import HeraldConfiguration
import HeraldCore
import HeraldIntake
import HeraldServer
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// gorush's `POST /api/push` on Herald's main port, realm `publish` (compat.md §6): each
/// notification becomes one raw send to the configured iOS or Android provider, through the
/// intake like every other front door.
public struct GorushRoutes: HTTPRoutes {
    /// The origin of what gorush clients send: their feedback is `GET /feedback?origin=gorush`.
    public static let origin = DeliveryOrigin("gorush")

    let iosProvider: String?
    let androidProvider: String?
    /// The `hms` provider of gorush's platform 3.
    let huaweiProvider: String?
    let intake: Intake
    let authorizer: Authorizer
    let logger: Logger

    /// The routes `compat.gorush` describes, or `nil` when it is absent.
    public init?(configuration: HeraldConfiguration, intake: Intake, authorizer: Authorizer, logger: Logger) throws {
        guard let section = configuration.compat.gorush else { return nil }
        self.iosProvider = try section.string("ios_provider")
        self.androidProvider = try section.string("android_provider")
        self.huaweiProvider = try section.string("huawei_provider")
        self.intake = intake
        self.authorizer = authorizer
        self.logger = logger
    }

    /// What the main port serves at gorush's path when `compat.gorush` is absent: `POST /api/push`
    /// answers a bare 404 (the front-end is not configured), and since the path stays known, any
    /// other method answers 405 with `Allow: POST` like every path of the API (docs/openapi.yaml).
    public struct Unconfigured: HTTPRoutes {
        /// Creates the stand-in.
        public init() {}

        public func register(on router: Router<HeraldRequestContext>) {
            router.post("/api/push") { _, _ -> Response in throw APIError.notFound }
        }
    }

    public func register(on router: Router<HeraldRequestContext>) {
        let authorizer = self.authorizer
        router.post("/api/push") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .publish)
            return try await push(request, scopes: scopes)
        }
    }

    func push(_ request: Request, scopes: TokenScopes? = nil) async throws -> Response {
        let buffer = try await request.collectBody()
        let parsed: GorushRequest
        do {
            parsed = try GorushRequest(body: buffer.readableBytesView)
        } catch {
            return Self.answer(code: 400, message: error.message)
        }
        var counts = 0
        var logs: [String] = []
        for notification in parsed.notifications {
            guard let (proto, platform) = provider(for: notification) else {
                logger.warning("gorush notification skipped: no provider for its platform", metadata: [
                    "platform": "\(notification.platform.map(String.init) ?? "none")",
                ])
                continue
            }
            // An app's token sends through its own providers only; gorush answers such a
            // notification as it answers a platform it has no credentials for.
            if let scopes, !scopes.allows(provider: proto) {
                logs += notification.tokens.map { Self.log(notification, platform: platform, token: $0, error: "provider \(proto) is not this token's") }
                continue
            }
            var tokens = notification.tokens
            if platform == "android", let to = notification.nonEmpty("to") { tokens.append(to) }
            if platform == "huawei" {
                counts += tokens.count
                // Push Kit's topics and conditions have no token to send to: Herald sends to tokens only.
                if notification.nonEmpty("topic") != nil || notification.nonEmpty("condition") != nil {
                    logger.warning("gorush Huawei topic or condition not sent: Herald's hms provider sends to tokens")
                }
                guard !tokens.isEmpty else { continue }
                if let refusal = await send(GorushHMSPayload.payload(for: notification), to: tokens, through: proto, notification: notification) {
                    logs += tokens.map { Self.log(notification, platform: platform, token: $0, error: refusal) }
                }
                continue
            }
            counts += tokens.count + (notification.nonEmpty("topic") == nil ? 0 : 1)
            let payload = platform == "ios" ? GorushAPNsPayload.payload(for: notification) : GorushFCMPayload.payload(for: notification)
            if let refusal = await send(payload, to: tokens, through: proto, notification: notification) {
                logs += tokens.map { Self.log(notification, platform: platform, token: $0, error: refusal) }
            }
            if platform == "android", let (topicPayload, label) = GorushFCMPayload.topicMessage(payload, for: notification) {
                // One more message, to the topic or condition (the condition wins when both are given).
                if let refusal = await send(topicPayload, to: [label], through: proto, notification: notification) {
                    logs.append(Self.log(notification, platform: platform, token: label, error: refusal))
                }
            }
        }
        return Self.answer(counts: counts, logs: logs)
    }

    /// The provider and gorush's platform name for a notification, if its platform is configured.
    func provider(for notification: GorushNotification) -> (String, String)? {
        switch notification.platform {
        case 1: iosProvider.map { ($0, "ios") }
        case 2: androidProvider.map { ($0, "android") }
        case 3: huaweiProvider.map { ($0, "huawei") }
        default: nil
        }
    }

    /// Sends through the intake; tokens the provider cannot take are left out (and logged) like
    /// the push service's own refusals would be. Returns the `logs` error when nothing was accepted.
    func send(_ payload: PreparedPayload, to tokens: [String], through proto: String, notification: GorushNotification) async -> String? {
        guard !tokens.isEmpty else { return nil }
        // gorush's `retry` is the most retries after the first attempt, capped by Herald's own maximum.
        let maxAttempts = notification.integer("retry").flatMap { $0 > 0 ? Int(clamping: $0 + 1) : nil }
        var send = RawSend(proto: proto, tokens: tokens, payload: payload, origin: Self.origin, maxAttempts: maxAttempts)
        send.invalidTokens = .leaveOut
        do {
            try await intake.send(send)
            return nil
        } catch where error.code == .overloaded {
            return "max capacity reached"
        } catch {
            logger.error("gorush notification not accepted", metadata: ["error": "\(error)"])
            return error.message
        }
    }

    // MARK: - Answers, in gorush's forms

    /// `{"counts":N,"logs":[...],"success":"ok"}`, keys in that order.
    static func answer(counts: Int, logs: [String]) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("counts")
        writer.number(counts)
        writer.key("logs")
        writer.beginArray()
        for log in logs { writer.raw(log) }
        writer.endArray()
        writer.key("success")
        writer.string("ok")
        writer.endObject()
        return response(.ok, writer.text)
    }

    /// `{"code":<code>,"message":"<text>"}`.
    static func answer(code: Int, message: String) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("code")
        writer.number(code)
        writer.key("message")
        writer.string(message)
        writer.endObject()
        return response(HTTPResponse.Status(code: code), writer.text)
    }

    /// One `logs` entry: `notif_id` (when given), `type`, `platform`, `token`, `message`, `error`.
    static func log(_ notification: GorushNotification, platform: String, token: String, error: String) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        if let id = notification.notificationID {
            writer.key("notif_id")
            writer.string(id)
        }
        writer.key("type")
        writer.string("failed-push")
        writer.key("platform")
        writer.string(platform)
        writer.key("token")
        writer.string(token)
        writer.key("message")
        writer.string(notification.string("message") ?? "")
        writer.key("error")
        writer.string(error)
        writer.endObject()
        return writer.text
    }

    static func response(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
