import HeraldCore
import NIOCore

/// Maps a published event onto an APNs payload and headers, as pushd-api.md §10.1 specifies.
public struct APNsPayloadRenderer: Sendable {
    /// Only these data keys are sent (`payload_filter`); `nil` sends all.
    public var payloadFilter: Set<String>?
    /// `aps.category` when the payload has none (`category`).
    public var defaultCategory: String?
    /// Whether `content-available` is set when the payload says nothing (`content_available`).
    public var defaultContentAvailable: Bool
    /// Whether `alert` is `{"title","body"}` instead of the message alone (`alert_title`).
    public var alertTitle: Bool

    /// Creates a renderer with the provider's options.
    public init(payloadFilter: Set<String>? = nil, defaultCategory: String? = nil, defaultContentAvailable: Bool = false, alertTitle: Bool = false) {
        self.payloadFilter = payloadFilter
        self.defaultCategory = defaultCategory
        self.defaultContentAvailable = defaultContentAvailable
        self.alertTitle = alertTitle
    }

    /// Renders one variant (language, silence, badge); `now` is Unix seconds, for `ttl`.
    public func render(_ event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<APNsMessage> {
        if let activity = event.liveActivity { return render(activity, of: event, for: variant, now: now) }
        let message = variant.silent ? nil : event.message.resolve(lang: variant.lang)
        let title = (variant.silent || !alertTitle) ? nil : event.title.resolve(lang: variant.lang)
        let sound = variant.silent ? nil : event.sound
        let category = event.category ?? defaultCategory
        let contentAvailable = event.contentAvailable ?? defaultContentAvailable

        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        var alerting = false
        if let message {
            writer.key("alert")
            if alertTitle {
                writer.beginObject()
                if let title {
                    writer.key("title")
                    writer.string(title)
                }
                writer.key("body")
                writer.string(message)
                writer.endObject()
            } else {
                writer.string(message)
            }
            alerting = true
        }
        if let badge = variant.badge {
            writer.key("badge")
            writer.number(badge)
            alerting = true
        }
        if let sound {
            writer.key("sound")
            writer.string(sound)
            alerting = true
        }
        if let category {
            writer.key("category")
            writer.string(category)
        }
        if contentAvailable {
            writer.key("content-available")
            writer.number(1)
        }
        writer.endObject()
        for (key, value) in event.data where key != "aps" && (payloadFilter?.contains(key) ?? true) {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()

        // §10.1: alert/sound/badge → alert 10; content-available alone → background 5; data only → alert 5.
        var pushType: APNsPushType = alerting || !contentAvailable ? .alert : .background
        var priority = alerting ? 10 : 5
        if let override = event.pushType.flatMap(APNsPushType.init(rawValue:)) { pushType = override }
        if let requested = event.priority { priority = requested == .high ? 10 : 5 }
        // APNs refuses background pushes at priority 10.
        if pushType == .background { priority = 5 }

        let body = ByteBuffer(bytes: writer.bytes)
        guard body.readableBytes <= pushType.maxPayloadBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        // Saturating: a payload may carry any ttl up to Int64.max, meaning "practically never".
        let expiration = event.expiration ?? event.ttl.map { ttl in
            let (sum, overflow) = now.addingReportingOverflow(Int64(ttl))
            return overflow ? (ttl < 0 ? .min : .max) : sum
        }
        return .send(APNsMessage(body: body, pushType: pushType, priority: priority, expiration: expiration, collapseID: event.collapseKey))
    }

    /// A Live Activity update: Apple's `aps` keys of the update, an `alert` dictionary when the
    /// event has a message (and the subscription is not silent), the data keys beside `aps`;
    /// `apns-push-type: liveactivity`, priority 10 unless the publish asks for `normal`.
    func render(_ activity: LiveActivity, of event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<APNsMessage> {
        let message = variant.silent ? nil : event.message.resolve(lang: variant.lang)
        let title = variant.silent ? nil : event.title.resolve(lang: variant.lang)
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        activity.writeAPSKeys(to: &writer, publishedAt: now)
        if message != nil || title != nil {
            // Apple shows a Live Activity's alert only as a dictionary.
            writer.key("alert")
            writer.beginObject()
            if let title {
                writer.key("title")
                writer.string(title)
            }
            if let message {
                writer.key("body")
                writer.string(message)
            }
            writer.endObject()
        }
        if !variant.silent, let sound = event.sound {
            writer.key("sound")
            writer.string(sound)
        }
        writer.endObject()
        for (key, value) in event.data where key != "aps" && (payloadFilter?.contains(key) ?? true) {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()
        let body = ByteBuffer(bytes: writer.bytes)
        guard body.readableBytes <= APNsPushType.liveactivity.maxPayloadBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        let expiration = event.expiration ?? event.ttl.map { ttl in
            let (sum, overflow) = now.addingReportingOverflow(Int64(ttl))
            return overflow ? (ttl < 0 ? .min : .max) : sum
        }
        return .send(APNsMessage(
            body: body, pushType: .liveactivity, priority: event.priority == .normal ? 5 : 10, expiration: expiration,
            collapseID: event.collapseKey))
    }
}
