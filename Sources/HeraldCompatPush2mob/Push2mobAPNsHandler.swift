import HeraldCore
import HeraldIntake
import HeraldStore
import Logging

/// The APNs socket (compat.md §3.3): `send expiry count token... payload` queues one prepared APNs
/// payload per token; `feedback` hands out the dead tokens APNs reported, once each.
struct Push2mobAPNsHandler: Push2mobSocketHandler {
    /// APNs reasons whose entry is `<timestamp>:<token>` (410).
    static let expiredReasons: Set<String> = ["Unregistered", "ExpiredToken"]
    /// APNs reasons whose entry is `0:<token>` (400: an invalid token).
    static let invalidReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic"]
    /// Most entries one reply carries; the rest come with the next `feedback`.
    static let feedbackLimit = 10_000

    var socket: String { "apns" }
    let intake: Intake
    /// Where its `feedback` command takes its socket's entries from.
    let feedback: any FrontEndFeedback
    let provider: String
    let origin: DeliveryOrigin
    let ids: Push2mobIDCounter
    let tokenFormat: Push2mobTokenFormat
    let logger: Logger

    func send(_ arguments: Substring) async throws(Push2mobRefusal) -> String {
        var fields = Push2mobFields(arguments)
        guard let expiryField = fields.next(), let countField = fields.next() else { throw .wrongNumberOfArguments }
        let count = try Push2mobFields.count(countField)
        let (tokenFields, payload) = try fields.tokensAndPayload(count: count)
        let now = intake.clock.nowSeconds()
        let expiry = try Push2mobExpiry.absolute(expiryField, now: now)
        var tokens: [String] = []
        tokens.reserveCapacity(tokenFields.count)
        for field in tokenFields { tokens.append(try Push2mobDeviceToken(field).hex) }
        _ = try Push2mobPayload.object(payload)

        // "An expiry in the past will make APNS try only once": 0, and no deadline of Herald's own.
        let future = expiry > now
        let prepared = PreparedPayload(
            body: String(payload), headers: ["apns-expiration": String(future ? expiry : 0)], expiration: future ? expiry : nil,
            label: origin.rawValue)
        do {
            try await intake.send(RawSend(proto: provider, tokens: tokens, payload: prepared, origin: origin))
        } catch {
            if error.code != .overloaded {
                logger.error("push2mob APNs send not accepted", metadata: ["error": "\(error)"])
            }
            throw Push2mobRefusal(refusal: error)
        }
        return "OK " + ids.take(tokens.count).map(String.init).joined(separator: " ")
    }

    func feedback() async throws(Push2mobRefusal) -> String {
        let entries: [FeedbackEntry]
        do {
            // DeviceTokenNotForTopic is a failure, not a dead token, in Herald's log: both are taken.
            entries = try await feedback.takeFeedback(origin: origin, actions: [.invalid, .failed], limit: Self.feedbackLimit)
        } catch {
            logger.error("push2mob cannot read its APNs feedback", metadata: ["error": "\(error)"])
            throw Push2mobRefusal(refusal: .unavailable)
        }
        var reply = "OK"
        for entry in entries {
            guard let timestamp = Self.timestamp(of: entry) else { continue }
            reply += " \(timestamp):\(tokenFormat.print(entry.token))"
        }
        return reply
    }

    /// The entry's timestamp: when APNs said the token stopped being valid (seconds), 0 for an
    /// invalid token, `nil` for an entry that is about no dead token (it is dropped).
    static func timestamp(of entry: FeedbackEntry) -> Int64? {
        if expiredReasons.contains(entry.reason) {
            // Milliseconds rounded down to seconds, as the feedback service's timestamps were.
            return entry.invalidSince.map { $0 >= 0 ? $0 / 1000 : ($0 - 999) / 1000 } ?? entry.time
        }
        return invalidReasons.contains(entry.reason) ? 0 : nil
    }
}
