/// A feedback entry as another Herald store kept it, with whether a front-end already took it
/// (``FrontEndFeedback/takeFeedback(origin:actions:limit:)``), so that `herald migrate` hands
/// nothing to a front-end twice.
public struct ImportedFeedback: Sendable, Equatable {
    /// The entry, with its id.
    public var entry: FeedbackEntry
    /// Whether a front-end took it.
    public var taken: Bool

    /// Creates an imported entry.
    public init(entry: FeedbackEntry, taken: Bool = false) {
        self.entry = entry
        self.taken = taken
    }
}
