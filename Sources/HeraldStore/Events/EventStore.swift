import HeraldCore

/// Events and their statistics (§4.13, §4.14, §4.16, §14).
public protocol EventStore: Sendable {
    /// Names of every event with at least one subscription, in ascending byte order.
    func eventNames() async throws -> [EventName]

    /// The event's statistics, or `nil` when it does not exist (§4.14, §14.2).
    func statistics(of event: EventName) async throws -> EventStatistics?

    /// Deletes an event (§4.16): for an ordinary name its subscriptions and statistics;
    /// for `broadcast` / `unicast:<id>` the statistics and explicit subscriptions only.
    /// - Returns: `false` when there was nothing to delete.
    func deleteEvent(_ event: EventName) async throws -> Bool
}
