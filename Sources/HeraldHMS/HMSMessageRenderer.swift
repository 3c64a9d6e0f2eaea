import HeraldCore
import Logging

/// Maps a published event onto a Huawei Push Kit `message` (without its tokens).
///
/// - `title` and `msg`, in the subscriber's language, become `android.notification` `title` and `body`, with
///   `click_action` `{"type":3}` (open the app), so Push Kit shows the notification itself. A silent subscription
///   or an event with neither gets a data message: no notification.
/// - `data.*` becomes `message.data`, the JSON text of the data object (Push Kit takes a string there).
/// - `ttl` (or what is left until `expiration`) becomes `android.ttl` (`"<n>s"`, at most 15 days); `priority`
///   becomes `android.urgency` (`HIGH` or `NORMAL`); `collapseKey` becomes `android.collapse_key` only when it is
///   an integer from -1 to 100, the only values Push Kit takes.
/// - With a `badge_class` configured, the subscriber's badge becomes `android.notification.badge`
///   `{"set_num":n,"class":…}`. Push Kit requires `class` (the app's launcher activity) in a badge; without it no
///   badge is sent at all, since a badge without its class makes Push Kit refuse the whole message.
///
/// The `message` without its tokens may take at most 4096 bytes; a larger one is refused here, never sent.
public struct HMSMessageRenderer: Sendable {
    /// The most bytes the `message` object may take without its `token` list (Push Kit's `80300008` otherwise).
    public static let maximumMessageBytes = 4096
    /// The longest `android.ttl` Push Kit accepts: 15 days.
    public static let maximumTTLSeconds: Int64 = 1_296_000
    /// The `android.collapse_key` values Push Kit accepts (-1: none collapse).
    public static let collapseKeyRange = -1...100
    /// The badge numbers Push Kit's `set_num` accepts.
    public static let badgeRange = 0...99

    /// The app's launcher activity (`badge_class`), without which no badge is sent.
    public let badgeClass: String?
    private let logger: Logger

    /// Creates a renderer that sends badges with `badgeClass` and logs what it leaves out to `logger`.
    public init(badgeClass: String? = nil, logger: Logger = Logger(label: "herald.hms")) {
        self.badgeClass = badgeClass
        self.logger = logger
    }

    /// Renders one variant (language, silence, badge); `now` is Unix seconds, for `ttl` and `expiration`.
    public func render(_ event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<HMSMessage> {
        let ttl: Int64?
        switch event.timeToLive(at: now) {
        case .expired: return .fail(DeliveryOutcome(.messageFailure, reason: "Expired"))
        case .unlimited: ttl = nil
        case .seconds(let seconds): ttl = max(0, min(seconds, Self.maximumTTLSeconds))
        }

        let title = variant.silent ? nil : event.title.resolve(lang: variant.lang)
        let body = variant.silent ? nil : event.message.resolve(lang: variant.lang)
        let notifies = title != nil || body != nil
        guard notifies || !event.data.isEmpty else {
            return .skip(reason: variant.silent ? "silent subscription and no data keys" : "no title, message or data keys")
        }

        var collapseKey: Int?
        if let text = event.collapseKey {
            if let number = Int(text.trimmingWhitespace()), Self.collapseKeyRange.contains(number) {
                collapseKey = number
            } else {
                logger.debug(
                    "Push Kit takes an integer from -1 to 100 as collapse key; not sent",
                    metadata: ["hms.event": "\(event.event)", "hms.collapse_key": "\(text)"])
            }
        }

        var writer = JSONWriter(capacity: 256)
        if !event.data.isEmpty {
            var data = JSONWriter(capacity: 128)
            data.object(event.data)
            writer.key("data")
            writer.string(data.text)
        }
        if collapseKey != nil || event.priority != nil || ttl != nil || notifies {
            writer.key("android")
            writer.beginObject()
            if let collapseKey {
                writer.key("collapse_key")
                writer.number(collapseKey)
            }
            if let priority = event.priority {
                writer.key("urgency")
                writer.string(priority == .high ? "HIGH" : "NORMAL")
            }
            if let ttl {
                writer.key("ttl")
                writer.string("\(ttl)s")
            }
            if notifies {
                writer.key("notification")
                writer.beginObject()
                if let title {
                    writer.key("title")
                    writer.string(title)
                }
                if let body {
                    writer.key("body")
                    writer.string(body)
                }
                writer.key("click_action")
                writer.beginObject()
                // Type 3: open the app's launcher activity, which needs no intent or URL.
                writer.key("type")
                writer.number(3)
                writer.endObject()
                if let badgeClass, let badge = variant.badge {
                    writer.key("badge")
                    writer.beginObject()
                    writer.key("set_num")
                    writer.number(min(max(badge, Self.badgeRange.lowerBound), Self.badgeRange.upperBound))
                    writer.key("class")
                    writer.string(badgeClass)
                    writer.endObject()
                }
                writer.endObject()
            }
            writer.endObject()
        }
        let message = HMSMessage(members: writer.text)
        guard message.messageBytes <= Self.maximumMessageBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        return .send(message)
    }
}
