import HeraldCore

/// One subscription of an ``ImportedSubscriber``.
public struct ImportedSubscription: Sendable, Equatable, Hashable {
    /// The event subscribed to.
    public var event: EventName
    /// Whether the subscription is silent.
    public var ignoreMessage: Bool

    /// Creates a subscription.
    public init(event: EventName, ignoreMessage: Bool) {
        self.event = event
        self.ignoreMessage = ignoreMessage
    }
}
