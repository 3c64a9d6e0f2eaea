import HeraldCore
import Logging

/// Maps a published event onto an FCM HTTP v1 message, as pushd-api.md §10.2 specifies.
///
/// The message is a data message, as rs/pushd's GCM messages were: `title` and `message` travel in `data`
/// (left out for silent subscriptions), followed by the payload's `data.*` keys, all strings.
/// `android.collapse_key` is the event name (none for `/test`, whose event is `test`), replaced by the
/// `collapseKey` extension key; `ttl`/`expiration` and `priority` set `android.ttl` and `android.priority`.
/// Those extension keys also set the APNs and Web Push headers FCM forwards (`apns-expiration`,
/// `apns-collapse-id`, `TTL`, `Urgency`), since `android.*` applies to Android devices only.
public struct FCMMessageRenderer: Sendable {
    /// The most bytes the data keys and values may take together (§10.2, providers.md §2.3).
    public static let maximumDataBytes = 4096
    /// The longest `android.ttl` FCM accepts: four weeks.
    public static let maximumTTLSeconds: Int64 = 2_419_200

    private let logger: Logger

    /// Creates a renderer that logs the data keys it leaves out to `logger`.
    public init(logger: Logger = Logger(label: "herald.fcm")) {
        self.logger = logger
    }

    /// Renders one variant (language, silence); `now` is Unix seconds, for `ttl` and `expiration`.
    public func render(_ event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<FCMMessage> {
        let ttl: Int64?
        switch event.timeToLive(at: now) {
        case .expired: return .fail(DeliveryOutcome(.messageFailure, reason: "Expired"))
        case .unlimited: ttl = nil
        case .seconds(let seconds): ttl = max(0, min(seconds, Self.maximumTTLSeconds))
        }

        var data: [(key: String, value: String)] = []
        if !variant.silent {
            if let title = event.title.resolve(lang: variant.lang) { data.append(("title", title)) }
            if let message = event.message.resolve(lang: variant.lang) { data.append(("message", message)) }
        }
        let localized = data.count
        var reserved: [String] = []
        for (key, value) in event.data {
            if FCMData.isReserved(key) {
                reserved.append(key)
            } else if let index = data[..<localized].firstIndex(where: { $0.key == key }) {
                // A payload data key wins over the localized text of the same name.
                data[index].value = value
            } else {
                data.append((key, value))
            }
        }
        if !reserved.isEmpty {
            logger.debug("FCM reserves these data keys; not sent", metadata: ["fcm.event": "\(event.event)", "fcm.keys": "\(reserved)"])
        }
        guard !data.isEmpty else {
            return .skip(reason: "silent subscription and no data keys")
        }
        let size = data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard size <= Self.maximumDataBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }

        let collapseKey = event.collapseKey ?? (event.event == EventName.test.rawValue ? nil : event.event)
        var writer = JSONWriter(capacity: 128 + size)
        // Closes the token's string; FCMMessage puts the prefix and the token before it.
        writer.raw("\"")
        writer.key("data")
        writer.beginObject()
        for (key, value) in data {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()
        if collapseKey != nil || event.priority != nil || ttl != nil {
            writer.key("android")
            writer.beginObject()
            if let collapseKey {
                writer.key("collapse_key")
                writer.string(collapseKey)
            }
            if let priority = event.priority {
                writer.key("priority")
                writer.string(priority.rawValue)
            }
            if let ttl {
                writer.key("ttl")
                writer.string("\(ttl)s")
            }
            writer.endObject()
        }
        if ttl != nil || event.collapseKey != nil {
            writer.key("apns")
            writer.beginObject()
            writer.key("headers")
            writer.beginObject()
            if let ttl {
                writer.key("apns-expiration")
                writer.string(String(now + ttl))
            }
            if let collapseKey = event.collapseKey {
                writer.key("apns-collapse-id")
                writer.string(collapseKey)
            }
            writer.endObject()
            writer.endObject()
        }
        if ttl != nil || event.priority != nil {
            writer.key("webpush")
            writer.beginObject()
            writer.key("headers")
            writer.beginObject()
            if let ttl {
                writer.key("TTL")
                writer.string(String(ttl))
            }
            if let priority = event.priority {
                writer.key("Urgency")
                writer.string(priority.rawValue)
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return .send(FCMMessage(suffix: writer.bytes))
    }
}
