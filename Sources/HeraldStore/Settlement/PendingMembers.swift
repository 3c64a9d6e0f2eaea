import HeraldCore

/// The members of a job up to its cursor whose outcome is not recorded: what a worker resuming
/// the job sends again.
///
/// Two forms of one set, the checkpoint writing the shorter. In a healthy fan-out answers come
/// in about the order of the requests, so the unanswered are a run of the most recent members
/// with a few answered ones among them: ``range(after:except:)`` lists those few instead of the
/// thousands still out.
public enum PendingMembers: Sendable, Equatable {
    /// Exactly these members (in any order).
    case listed([SubscriberID])
    /// Every member after `after` (from the first when `nil`) up to the job's cursor, except these.
    case range(after: SubscriberID?, except: [SubscriberID])

    /// Nothing pending.
    public static let none = PendingMembers.listed([])

    /// Whether nothing is pending.
    public var isEmpty: Bool { self == .none }
}
