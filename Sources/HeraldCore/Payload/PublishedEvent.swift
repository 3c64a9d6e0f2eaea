import Collections
import OrderedCollections

/// How urgently a push service should deliver a notification (Herald's `priority` key).
public enum NotificationPriority: String, Sendable, Codable, Hashable {
    /// Deliver immediately, waking the device.
    case high
    /// Deliver when convenient for the device's power state.
    case normal
}

/// A published event after validation and template compilation (§5.4).
///
/// This is what is stored with a publish job and rendered per subscriber by the
/// providers; `var.*` keys are gone and every template is compiled.
public struct PublishedEvent: Sendable, Equatable, Hashable, Codable {
    /// The event name it was published to (`test` for `/subscriber/:id/test`).
    public var event: String
    /// Compiled titles by language.
    public var title: LocalizedText
    /// Compiled messages by language.
    public var message: LocalizedText
    /// `data.*` keys (the part after the first dot) in body order.
    public var data: OrderedDictionary<String, String>
    /// `var.*` keys: never delivered, kept only for provider templates (`launch_template`, ...).
    public var vars: OrderedDictionary<String, String>
    /// APNs sound name.
    public var sound: String?
    /// Badge override, as given (parsed with `parseInt` rules when used).
    public var badge: String?
    /// Whether the stored badge is incremented (payload `incrementBadge` not `"false"`).
    public var incrementBadge: Bool
    /// APNs category.
    public var category: String?
    /// `contentAvailable`: `nil` when absent.
    public var contentAvailable: Bool?
    /// Seconds the push service may keep the notification.
    public var ttl: Int?
    /// Unix time after which it must not be delivered (wins over `ttl`).
    public var expiration: Int64?
    /// Delivery priority.
    public var priority: NotificationPriority?
    /// Notifications with the same key replace each other on the device.
    public var collapseKey: String?
    /// APNs push type override.
    public var pushType: String?
    /// The publish it belongs to, random and unique, set once when it is accepted: with the subscriber it names
    /// one delivery, the same on every attempt (a webhook's `webhook-id`). `nil` in what was stored before it existed.
    public var publishID: String?
    /// The only providers whose subscribers receive it: those of the API token's app that
    /// published it, so that two apps with the same event names reach only their own devices.
    /// `nil`: every provider.
    public var onlyProviders: Set<String>?
    /// A Live Activity update for APNs subscribers (`liveActivity`); other providers ignore it.
    public var liveActivity: LiveActivity?
    /// An APNs broadcast channel (iOS 18) the publish goes to instead of the event's subscribers
    /// (`apnsChannel`): one push that reaches every device following it.
    public var apnsChannel: String?
    /// The APNs provider of ``apnsChannel`` (`apnsProvider`), when several have channels.
    public var apnsProvider: String?

    /// Creates a compiled notification.
    public init(
        event: String,
        title: LocalizedText = .init(),
        message: LocalizedText = .init(),
        data: OrderedDictionary<String, String> = [:],
        vars: OrderedDictionary<String, String> = [:],
        sound: String? = nil,
        badge: String? = nil,
        incrementBadge: Bool = true,
        category: String? = nil,
        contentAvailable: Bool? = nil,
        ttl: Int? = nil,
        expiration: Int64? = nil,
        priority: NotificationPriority? = nil,
        collapseKey: String? = nil,
        pushType: String? = nil
    ) {
        self.event = event
        self.title = title
        self.message = message
        self.data = data
        self.vars = vars
        self.sound = sound
        self.badge = badge
        self.incrementBadge = incrementBadge
        self.category = category
        self.contentAvailable = contentAvailable
        self.ttl = ttl
        self.expiration = expiration
        self.priority = priority
        self.collapseKey = collapseKey
        self.pushType = pushType
    }

    /// The Unix time after which this must not be delivered: `expiration`, else `publishedAt + ttl`.
    ///
    /// The sum saturates: a payload may give any `ttl` up to `Int64.max`, which must mean
    /// "practically never" rather than trap the delivery engine.
    public func deadline(publishedAt: Int64) -> Int64? {
        if let expiration { return expiration }
        if let ttl {
            let (sum, overflow) = publishedAt.addingReportingOverflow(Int64(ttl))
            return overflow ? (ttl < 0 ? .min : .max) : sum
        }
        return nil
    }
}
