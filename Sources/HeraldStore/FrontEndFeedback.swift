import HeraldCore

/// Feedback a front-end hands to its own clients once (apns-ms's `GET /expired-devices`,
/// push2mob's `feedback`, compat.md §1.4).
public protocol FrontEndFeedback: Sendable {
    /// The entries about `origin`'s deliveries with one of `actions` that were not taken yet,
    /// oldest first, at most `limit`, marked taken in the same transaction: each is returned
    /// once, whichever node asks. Entries never taken are pruned with the rest of the log.
    func takeFeedback(origin: DeliveryOrigin, actions: Set<FeedbackEntry.Action>, limit: Int) async throws -> [FeedbackEntry]
}
