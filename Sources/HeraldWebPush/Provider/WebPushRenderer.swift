import HeraldCore

/// Maps a published event onto a Web Push message, as pushd-api.md §10.4 specifies.
public struct WebPushRenderer: Sendable {
    /// The largest TTL sent: RFC 8030 parsers need handle only 31 bits.
    public static let maximumTTL = Int(Int32.max)

    /// The `TTL` when the event has neither `ttl` nor `expiration` (the provider's `ttl` option).
    public var defaultTTL: Int

    /// Creates a renderer.
    public init(defaultTTL: Int = WebPushProvider.Settings.defaultTTL) {
        self.defaultTTL = defaultTTL
    }

    /// Renders one variant (language, silence); `now` is Unix seconds, for `expiration`.
    ///
    /// - `title` / `message` are the variant's translations, left out when there is none or the variant is silent;
    ///   `data` follows, `{}` when empty.
    /// - `TTL`: the time left until `expiration` (never negative), else `ttl`, else ``defaultTTL``.
    /// - `Urgency`: `priority` `high` → `high`, `normal` → `normal`; without a priority, `low` for a silent
    ///   variant and `normal` otherwise.
    /// - `Topic`: from `collapseKey` (``WebPushTopic``).
    ///
    /// A plaintext over ``WebPushEncryption/maximumPlaintextLength`` bytes fails with `PayloadTooLarge`.
    public func render(_ event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<WebPushMessage> {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("event")
        json.string(event.event)
        if !variant.silent {
            if let title = event.title.resolve(lang: variant.lang) {
                json.key("title")
                json.string(title)
            }
            if let message = event.message.resolve(lang: variant.lang) {
                json.key("message")
                json.string(message)
            }
        }
        json.key("data")
        json.object(event.data)
        json.endObject()
        guard json.bytes.count <= WebPushEncryption.maximumPlaintextLength else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }

        let ttl: Int
        if let expiration = event.expiration {
            ttl = Int(max(0, min(expiration - now, Int64(Self.maximumTTL))))
        } else {
            ttl = min(max(0, event.ttl ?? defaultTTL), Self.maximumTTL)
        }
        let urgency: WebPushUrgency
        switch event.priority {
        case .high?: urgency = .high
        case .normal?: urgency = .normal
        case nil: urgency = variant.silent ? .low : .normal
        }
        let topic = WebPushTopic.make(collapseKey: event.collapseKey)
        return .send(WebPushMessage(plaintext: json.bytes, ttl: ttl, urgency: urgency, topic: topic))
    }

    /// A prepared payload as a message: its body is the plaintext (encrypted per subscription when
    /// sent), its `ttl` and `urgency` headers the `TTL` and `Urgency` (by default the provider's
    /// `TTL` and `normal`), and its `topic` header a collapse key made into the `Topic` as an
    /// event's `collapseKey` is (``WebPushTopic``). A front-end that speaks for Web Push
    /// applications (the Matrix gateway) builds it.
    ///
    /// Fails with `PayloadTooLarge` over ``WebPushEncryption/maximumPlaintextLength`` bytes, and
    /// with `InvalidPayload` for a `ttl` or `urgency` of the wrong form.
    public func render(_ payload: PreparedPayload) -> RenderResult<WebPushMessage> {
        let plaintext = Array(payload.body.utf8)
        guard plaintext.count <= WebPushEncryption.maximumPlaintextLength else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        var ttl = defaultTTL
        if let text = payload.headers["ttl"] {
            guard let seconds = Int(text), seconds >= 0 else { return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload")) }
            ttl = min(seconds, Self.maximumTTL)
        }
        var urgency = WebPushUrgency.normal
        if let text = payload.headers["urgency"] {
            guard let given = WebPushUrgency(rawValue: text) else { return .fail(DeliveryOutcome(.messageFailure, reason: "InvalidPayload")) }
            urgency = given
        }
        let topic = WebPushTopic.make(collapseKey: payload.headers["topic"])
        return .send(WebPushMessage(plaintext: plaintext, ttl: ttl, urgency: urgency, topic: topic))
    }
}
