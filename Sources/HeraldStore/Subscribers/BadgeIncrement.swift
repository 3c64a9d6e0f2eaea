import HeraldCore

/// What incrementing one subscriber's stored badge found
/// (``SubscriberStore/incrementBadges(expecting:)``).
public enum BadgeIncrement: Sendable, Equatable {
    /// The badge was incremented from `previous`, as stored before (`nil`: none).
    case incremented(from: String?)
    /// The subscriber no longer exists: nothing was written, and nothing is delivered to it.
    case subscriberGone

    /// What the store found for one subscriber: the badge before, if it found the subscriber.
    public init(previous: String??) {
        self = previous.map { .incremented(from: $0) } ?? .subscriberGone
    }
}
