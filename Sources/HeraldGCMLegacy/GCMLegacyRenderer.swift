import HeraldCore
import OrderedCollections

/// Maps a published event onto a legacy GCM data message, as rs/pushd's GCM service sent it.
///
/// `{"collapse_key":"<collapseKey or event>","priority":"high","time_to_live":3600,"data":{"title":…,"message":…,<data>}}`:
/// a data message (no `notification` block) whose `title` and `message` are the subscriber's translations (left out
/// for silent subscriptions), followed by the payload's data keys, which win over `title`/`message` of the same name.
public struct GCMLegacyRenderer: Sendable {
    /// The largest `data` GCM accepts: keys and values together, in bytes (`MessageTooBig` otherwise).
    public static let maximumDataBytes = 4096
    /// The longest `time_to_live` GCM accepts (4 weeks).
    public static let maximumTimeToLive = 2_419_200

    /// Creates a renderer.
    public init() {}

    /// Renders one variant; `now` is Unix seconds, for `expiration`.
    public func render(_ event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<GCMLegacyMessage> {
        var data: OrderedDictionary<String, String> = [:]
        if !variant.silent {
            if let title = event.title.resolve(lang: variant.lang) { data["title"] = title }
            if let message = event.message.resolve(lang: variant.lang) { data["message"] = message }
        }
        for (key, value) in event.data where !FCMData.isReserved(key) {
            data[key] = value
        }
        let size = data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard size <= Self.maximumDataBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        var json = JSONWriter()
        json.key("collapse_key")
        json.string(event.collapseKey ?? event.event)
        if let priority = event.priority {
            json.key("priority")
            json.string(priority.rawValue)
        }
        if let ttl = Self.timeToLive(of: event, now: now) {
            json.key("time_to_live")
            json.number(ttl)
        }
        json.key("data")
        json.object(data)
        return .send(GCMLegacyMessage(members: json.text))
    }

    /// Seconds GCM may keep the message: what is left until `expiration`, else `ttl`, within 0…4 weeks.
    static func timeToLive(of event: PublishedEvent, now: Int64) -> Int? {
        let seconds: Int64
        if let expiration = event.expiration {
            seconds = expiration - now
        } else if let ttl = event.ttl {
            seconds = Int64(ttl)
        } else {
            return nil
        }
        return Int(min(max(seconds, 0), Int64(maximumTimeToLive)))
    }
}
