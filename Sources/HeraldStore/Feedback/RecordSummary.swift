import HeraldCore

/// What recording a batch of outcomes changed.
public struct RecordSummary: Sendable, Equatable {
    /// Subscribers unregistered by this batch, with the reason.
    public var unregistered: [(id: SubscriberID, reason: String)]

    /// Creates a summary.
    public init(unregistered: [(id: SubscriberID, reason: String)] = []) {
        self.unregistered = unregistered
    }

    public static func == (lhs: RecordSummary, rhs: RecordSummary) -> Bool {
        lhs.unregistered.map(\.id) == rhs.unregistered.map(\.id) && lhs.unregistered.map(\.reason) == rhs.unregistered.map(\.reason)
    }
}
