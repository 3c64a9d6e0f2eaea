import HeraldCore

/// One subscriber of a job's audience, with its subscription option.
public struct AudienceMember: Sendable, Equatable {
    /// The subscriber as stored.
    public var subscriber: Subscriber
    /// Whether its subscription is silent (never for broadcast, unicast, test).
    public var silent: Bool
    /// Whether the store incremented its stored badge while reading the page
    /// (``PublishQueue/audience(of:after:limit:incrementingBadgesOf:)``); ``subscriber``'s badge
    /// is then the one before.
    public var badgeIncremented: Bool

    /// Creates a member.
    public init(subscriber: Subscriber, silent: Bool, badgeIncremented: Bool = false) {
        self.subscriber = subscriber
        self.silent = silent
        self.badgeIncremented = badgeIncremented
    }
}
