import HeraldCore
import HeraldIntake
import HeraldStore
import Logging

/// The GCM socket (compat.md §3.4): `send collapsekey expiry delayidle count regid... payload`
/// queues the payload as data for every id through the FCM (or legacy GCM) provider; `feedback`
/// hands out what the service said about the ids, once each.
struct Push2mobGCMHandler: Push2mobSocketHandler {
    /// Registration ids per legacy GCM request: one id is handed out per started chunk.
    static let idsPerChunk = 1000
    /// Most entries one feedback reply carries.
    static let feedbackLimit = 10_000

    var socket: String { "gcm" }
    let intake: Intake
    /// Where its `feedback` command takes its socket's entries from.
    let feedback: any FrontEndFeedback
    let provider: String
    /// `true`: the provider speaks legacy GCM (`gcm-legacy`); `false`: FCM HTTP v1.
    let legacy: Bool
    let origin: DeliveryOrigin
    let ids: Push2mobIDCounter
    let filter: Push2mobGCMFilter
    let logger: Logger

    func send(_ arguments: Substring) async throws(Push2mobRefusal) -> String {
        var fields = Push2mobFields(arguments)
        guard let collapseKey = fields.next(), let expiryField = fields.next(), let delayIdle = fields.next(), let countField = fields.next()
        else { throw .wrongNumberOfArguments }
        let count = try Push2mobFields.count(countField)
        let (idFields, payload) = try fields.tokensAndPayload(count: count)
        let now = intake.clock.nowSeconds()
        let expiry = try Push2mobExpiry.absolute(expiryField, now: now)
        let ttl = expiry - now
        guard ttl <= Push2mobExpiry.maxGCMSeconds else { throw .expiryTooHigh(expiry) }
        guard delayIdle == "delayidle" || delayIdle == "nodelayidle" else { throw .invalidDelayIdle(delayIdle) }
        do {
            try await filter.refresh()
        } catch {
            logger.warning("push2mob cannot read its GCM feedback to filter ids", metadata: ["error": "\(error)"])
        }
        let registrationIDs = filter.apply(idFields.map(String.init), now: now)
        guard !registrationIDs.isEmpty else { throw .allFilteredOut }
        let data = try Push2mobPayload.object(payload)

        let chunks = (registrationIDs.count + Self.idsPerChunk - 1) / Self.idsPerChunk
        guard ttl >= 1 else {
            // push2mob dropped such a message when it came to send it; nothing would be delivered.
            logger.info("push2mob GCM message dropped: its expiry has passed", metadata: ["expiry": "\(expiry)"])
            return Self.reply(ids.take(chunks))
        }
        let body = legacy
            ? Self.legacyBody(data: data, collapseKey: collapseKey, ttl: ttl, delayWhileIdle: delayIdle == "delayidle")
            : Self.fcmBody(data: data, collapseKey: collapseKey, ttl: ttl)
        let prepared = PreparedPayload(body: body, expiration: expiry, label: origin.rawValue)
        do {
            try await intake.send(RawSend(proto: provider, tokens: registrationIDs, payload: prepared, origin: origin))
        } catch {
            if error.code != .overloaded {
                logger.error("push2mob GCM send not accepted", metadata: ["error": "\(error)"])
            }
            throw Push2mobRefusal(refusal: error)
        }
        return Self.reply(ids.take(chunks))
    }

    func feedback() async throws(Push2mobRefusal) -> String {
        let entries: [FeedbackEntry]
        do {
            entries = try await feedback.takeFeedback(
                origin: origin, actions: [.invalid, .failed, .replaced], limit: Self.feedbackLimit)
        } catch {
            logger.error("push2mob cannot read its GCM feedback", metadata: ["error": "\(error)"])
            throw Push2mobRefusal(refusal: .unavailable)
        }
        let returned = entries.compactMap(Push2mobGCMFeedback.init)
        filter.returned(returned, at: intake.clock.nowSeconds())
        return (["OK"] + returned.map(\.text)).joined(separator: " ")
    }

    static func reply(_ ids: [Int64]) -> String {
        "OK " + ids.map(String.init).joined(separator: " ")
    }

    /// An FCM HTTP v1 message without its token (compat.md §1.3): string data, the collapse key and the ttl.
    static func fcmBody(data: [(key: String, value: BodyValue)], collapseKey: Substring, ttl: Int64) -> String {
        let strings = FCMData.strings(data)
        let android: BodyValue = .object([("collapse_key", .string(String(collapseKey))), ("ttl", .string("\(ttl)s"))])
        return BodyValue.object([("data", .object(strings)), ("android", android)]).jsonText
    }

    /// A legacy GCM request without its registration ids: what push2mob sent.
    static func legacyBody(data: [(key: String, value: BodyValue)], collapseKey: Substring, ttl: Int64, delayWhileIdle: Bool) -> String {
        BodyValue.object([
            ("collapse_key", .string(String(collapseKey))), ("time_to_live", .number(String(ttl))),
            ("delay_while_idle", .bool(delayWhileIdle)), ("data", .object(data)),
        ]).jsonText
    }
}
