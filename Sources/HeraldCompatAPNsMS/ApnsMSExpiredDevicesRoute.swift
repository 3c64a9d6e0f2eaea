#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HeraldCore
import HeraldStore
import Hummingbird
import Logging

/// `GET /expired-devices` (compat.md §4.4): the tokens of this front-end's notifications that
/// APNs called invalid, each handed out once, oldest first, as apns-ms's feedback-service list.
struct ApnsMSExpiredDevicesRoute: Sendable {
    /// Reasons whose entry's time is APNs's `timestamp` (410), when it gave one.
    static let expiredReasons: Set<String> = ["Unregistered", "ExpiredToken"]
    /// Reasons whose entry's time is when Herald got the answer (400).
    static let invalidReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic"]
    /// Most entries one answer carries; the rest come with the next call.
    static let limit = 10_000

    let store: any FrontEndFeedback
    let origin: DeliveryOrigin
    let logger: Logger
    /// The server's offset from UTC at an instant (Unix seconds): the local time zone's.
    var offset: @Sendable (Int64) -> Int = { seconds in
        TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The answer: `{"devices":[{"timestamp":…,"deviceToken":…},…]}`, `{"devices":[]}` when none.
    func handle() async -> Response {
        let entries: [FeedbackEntry]
        do {
            // DeviceTokenNotForTopic is a failure, not a dead token, in Herald's log: both actions
            // are taken, and only the four reasons of §4.4 are answered.
            entries = try await store.takeFeedback(origin: origin, actions: [.invalid, .failed], limit: Self.limit)
        } catch {
            logger.error("apns-ms cannot read its expired devices", metadata: ["error": "\(error)"])
            return ApnsMSError.internalError("\(error)").response
        }
        var writer = GoJSONWriter(capacity: 32 + entries.count * 120)
        writer.beginObject()
        writer.key("devices")
        writer.beginArray()
        for entry in entries {
            guard let seconds = timestamp(of: entry) else { continue }
            writer.beginObject()
            writer.key("timestamp")
            writer.string(RFC3339Time(unixSeconds: seconds, offset: offset(seconds)).text)
            writer.key("deviceToken")
            writer.string(entry.token.lowercased())
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return ApnsMSResponse.json(.ok, writer.text)
    }

    /// When the token stopped being valid (Unix seconds), or `nil` for an entry that is no invalid token.
    func timestamp(of entry: FeedbackEntry) -> Int64? {
        if Self.expiredReasons.contains(entry.reason) {
            // Milliseconds truncated to seconds, as the feedback service's timestamps were.
            return entry.invalidSince.map { $0 >= 0 ? $0 / 1000 : ($0 - 999) / 1000 } ?? entry.time
        }
        return Self.invalidReasons.contains(entry.reason) ? entry.time : nil
    }
}
