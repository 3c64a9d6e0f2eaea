import HeraldCore

/// Who a publish job delivers to.
public enum PublishAudience: Sendable, Equatable {
    /// The event's subscribers, each with its subscription's `ignore_message`.
    case subscribers(EventName)
    /// Every registered subscriber, none silent.
    case broadcast
    /// One subscriber, not silent (`unicast:<id>`).
    case unicast(SubscriberID)
    /// One subscriber, not silent, no statistics (`POST /subscriber/:id/test`).
    case test(SubscriberID)
    /// The subscribers of provider `proto` subscribed to any of the events, each once and none
    /// silent (Choominator's notification to several groups, compat.md §5.3).
    ///
    /// Enqueueing counts one publish (`total + 1`, `last = now`) in the statistics of each listed
    /// event that exists; its deliveries count in no statistics row, since a subscriber in several
    /// of the events would have to be counted in one of them arbitrarily.
    case groups([EventName], proto: String)

    /// The statistics row this audience's deliveries count in, if any.
    public var statisticsEvent: EventName? {
        switch self {
        case .subscribers(let event): event
        case .broadcast: .broadcast
        case .unicast(let id): .unicast(id)
        case .test, .groups: nil
        }
    }
}
