import Crypto
import HeraldCore
import HeraldIntake
import HeraldServer
import HeraldStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The Matrix push gateway API on Herald's main port (compat.md §8): a homeserver's
/// `POST /_matrix/push/v1/notify` becomes one raw send per device, through the intake, and is
/// answered once they are queued, without waiting for the push services.
struct MatrixRoutes: HTTPRoutes {
    /// The path every homeserver posts to (Synapse refuses any other).
    static let path = "/_matrix/push/v1/notify"
    /// The largest request taken: 512 KiB.
    static let maxBodySize = 512 * 1024
    /// The origin of what homeservers send: their feedback is `GET /feedback?origin=matrix`.
    static let origin = DeliveryOrigin("matrix")
    /// How long an event sent to a pushkey is remembered, so that a homeserver's repeat of a
    /// request that timed out is not delivered twice (the spec asks gateways to deduplicate).
    static let repeatWindow = Duration.seconds(86_400)

    let apps: MatrixAppTable
    let intake: Intake
    /// Where pushkeys reported dead are looked up.
    let feedback: any FeedbackLog
    let authorizer: Authorizer
    let counter: FrontEndRequestCounter
    let logger: Logger

    func register(on router: Router<HeraldRequestContext>) {
        router.post(RouterPath(stringLiteral: Self.path)) { request, context -> Response in
            await notify(request, context: context)
        }
        for method in [HTTPRequest.Method.get, .put, .delete, .patch] {
            router.on(RouterPath(stringLiteral: Self.path), method: method) { request, _ -> Response in
                Self.answer(MatrixRequestError.unrecognized(method: request.method.rawValue))
            }
        }
        // Sygnal's health check, which load balancers in front of it poll.
        router.get("/health") { _, _ -> Response in Response(status: .ok) }
    }

    /// Checks the caller as the `publish` realm does without credentials (the push gateway API has
    /// none: its ACL and rate limits), reads the notification and sends it to every device.
    func notify(_ request: Request, context: HeraldRequestContext) async -> Response {
        guard authorizer.allowsWithoutCredentials(realm: .publish, address: context.remoteAddress) else {
            return Self.answer(status: .forbidden, errcode: "M_FORBIDDEN", error: "Forbidden")
        }
        guard authorizer.admitsWithoutCredentials(realm: .publish, address: context.remoteAddress) else {
            return Self.answer(status: .tooManyRequests, errcode: "M_LIMIT_EXCEEDED", error: "Too many requests")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBodySize)
        } catch {
            return Self.answer(MatrixRequestError.tooLarge(limitBytes: Self.maxBodySize))
        }
        let notification: MatrixNotification
        do throws(MatrixRequestError) {
            guard let value = try? JSONBodyParser.parse(body.readableBytesView) else { throw .notJSON }
            notification = try MatrixNotification(request: value)
        } catch {
            logger.debug("Matrix notification refused", metadata: ["error": "\(error)"])
            return Self.answer(error)
        }
        var rejected: [String] = []
        for device in notification.devices {
            switch await send(notification, to: device) {
            case .queued, .nothingToSend:
                continue
            case .rejected:
                rejected.append(device.pushkey)
            case .refused(let error):
                // The homeserver tries the whole notification again later.
                return error.code == .overloaded
                    ? Self.answer(status: .tooManyRequests, errcode: "M_LIMIT_EXCEEDED", error: error.message)
                    : Self.answer(status: .serviceUnavailable, errcode: "M_UNKNOWN", error: error.message)
            }
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("rejected")
        writer.beginArray()
        for pushkey in rejected { writer.string(pushkey) }
        writer.endArray()
        writer.endObject()
        return Self.response(.ok, writer.text)
    }

    /// What became of one device.
    enum DeviceResult {
        /// Its delivery is queued.
        case queued
        /// Nothing is sent to it for this notification (no alert and no badge), as Sygnal.
        case nothingToSend
        /// Its pushkey is rejected: the homeserver removes the pusher.
        case rejected
        /// The intake refused for a reason of its own (overloaded, the store unavailable).
        case refused(IntakeError)
    }

    /// Builds the device's payload for its app's provider and queues it.
    func send(_ notification: MatrixNotification, to device: MatrixDevice) async -> DeviceResult {
        let app: MatrixApp
        switch apps.match(device.appID) {
        case .app(let found):
            app = found
        case .unknown:
            return rejected(device, app: "unknown", reason: "no app is configured for its app_id")
        case .ambiguous(let patterns):
            return rejected(device, app: "ambiguous", reason: "its app_id matches \(patterns.joined(separator: ", "))")
        }
        guard device.defaultPayload != nil else { return rejected(device, app: app.pattern, reason: "data.default_payload is not an object") }
        let token: String
        let payload: PreparedPayload?
        switch app.delivery {
        case .apns(let convertToHex, let sendBadgeCounts, let pushType):
            guard let hex = MatrixAPNsPayload.token(fromPushkey: device.pushkey, convertToHex: convertToHex) else {
                return rejected(device, app: app.pattern, reason: "the pushkey is not base64 of an APNs token")
            }
            token = hex
            payload = MatrixAPNsPayload.payload(for: notification, device: device, sendBadgeCounts: sendBadgeCounts, pushType: pushType)
        case .fcm(let options):
            token = device.pushkey
            payload = MatrixFCMPayload.payload(for: notification, device: device, fcmOptions: options)
        case .hms:
            token = device.pushkey
            payload = MatrixHMSPayload.payload(for: notification, device: device)
        case .webPush(let ttl, let eventsOnly, let onlyLastPerRoom):
            guard let subscription = MatrixWebPushPayload.subscription(for: device) else {
                return rejected(device, app: app.pattern, reason: "the pusher's data lacks the subscription's endpoint or auth")
            }
            token = subscription
            payload = MatrixWebPushPayload.payload(
                for: notification, device: device, ttl: ttl, eventsOnly: eventsOnly, onlyLastPerRoom: onlyLastPerRoom)
        }
        let normalized: String
        do {
            normalized = try intake.validateToken(proto: app.provider, TokenInput(token: .string(token))).token
        } catch {
            return rejected(device, app: app.pattern, reason: "\(app.provider) does not take the pushkey")
        }
        if await reportedDead(normalized, of: app, since: device.pushkeyTS ?? 0) {
            // The spec lets a gateway reject a pushkey for an earlier failure: the homeserver then
            // drops the pusher instead of sending it every notification for days.
            return rejected(device, app: app.pattern, reason: "\(app.provider) reported the pushkey dead")
        }
        guard let payload else {
            counter.count(app.pattern, result: "nothing_to_send")
            return .nothingToSend
        }
        var send = RawSend(proto: app.provider, tokens: [token], payload: payload, origin: Self.origin)
        send.once = Self.onceKey(eventID: notification.eventID, pushkey: device.pushkey)
        let queued: Int
        do {
            queued = try await intake.send(send)
        } catch where error.code == .invalidToken || error.code == .destinationNotAllowed {
            return rejected(device, app: app.pattern, reason: "\(app.provider) does not take the pushkey")
        } catch {
            logger.error("Matrix notification not accepted", metadata: ["error": "\(error)", "app": "\(app.pattern)"])
            counter.count(app.pattern, result: "refused", reason: error.code.description)
            return .refused(error)
        }
        guard queued > 0 else {
            logger.debug("Matrix notification repeated", metadata: ["app_id": "\(device.appID)"])
            counter.count(app.pattern, result: "repeated")
            return .queued
        }
        counter.count(app.pattern, result: "queued")
        return .queued
    }

    /// The key under which an event goes to a pushkey once: a digest, since pushkeys of Web Push
    /// subscriptions are long; none for a badge-only notification, which has no event.
    static func onceKey(eventID: String?, pushkey: String) -> RawSend.Once? {
        guard let eventID, !eventID.isEmpty else { return nil }
        var hash = SHA256()
        hash.update(data: Array(eventID.utf8))
        hash.update(data: [0])
        hash.update(data: Array(pushkey.utf8))
        return RawSend.Once(key: "matrix:" + Base64URL.encode(hash.finalize()), window: repeatWindow)
    }

    /// Whether the feedback log holds `token` as reported dead by `app`'s provider since the pusher
    /// was last updated; a store that cannot answer counts as no (the delivery then finds out).
    private func reportedDead(_ token: String, of app: MatrixApp, since: Int64) async -> Bool {
        do {
            return try await !feedback.deadTokens(proto: app.provider, among: [token], since: since).isEmpty
        } catch {
            logger.warning("cannot look up dead pushkeys", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Counts and logs a rejected pushkey (never the pushkey itself).
    private func rejected(_ device: MatrixDevice, app: String, reason: String) -> DeviceResult {
        logger.info("Matrix pushkey rejected", metadata: ["app_id": "\(device.appID)", "reason": "\(reason)"])
        counter.count(app, result: "rejected")
        return .rejected
    }

    // MARK: - Answers, in the Matrix form

    /// `{"errcode":…,"error":…}` with the error's status.
    static func answer(_ error: MatrixRequestError) -> Response {
        answer(status: HTTPResponse.Status(code: error.status), errcode: error.errcode, error: error.message)
    }

    /// `{"errcode":…,"error":…}` with `status`.
    static func answer(status: HTTPResponse.Status, errcode: String, error: String) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("errcode")
        writer.string(errcode)
        writer.key("error")
        writer.string(error)
        writer.endObject()
        return response(status, writer.text)
    }

    static func response(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
