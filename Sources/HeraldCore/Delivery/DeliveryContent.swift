/// What one delivery sends: a published event, rendered per subscriber by its provider, or a
/// payload the sender prepared for the provider, sent as it is.
///
/// Indirect: it is boxed once per publish and shared by reference by every record, retry and
/// dead letter of its deliveries, instead of copying an event's many fields into each.
public indirect enum DeliveryContent: Sendable, Hashable {
    /// A compiled event (pushd's publish): templated, localized, badge-counted per subscriber.
    case event(PublishedEvent)
    /// A ready-made provider payload (the compat front-ends' raw sends).
    case prepared(PreparedPayload)

    /// Unix seconds after which the content must not be delivered, if any.
    public func deadline(publishedAt: Int64) -> Int64? {
        switch self {
        case .event(let event): event.deadline(publishedAt: publishedAt)
        case .prepared(let payload): payload.expiration
        }
    }

    /// The event name it belongs to (a prepared payload's label).
    public var eventName: String {
        switch self {
        case .event(let event): event.event
        case .prepared(let payload): payload.label
        }
    }

    /// The event, when it is one.
    public var event: PublishedEvent? {
        if case .event(let event) = self { event } else { nil }
    }
}
