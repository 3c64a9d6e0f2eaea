import HeraldCore

/// Subscriptions: subscriber → event with `ignore_message` (§4.7–4.11).
public protocol SubscriptionStore: Sendable {
    /// The subscriber's subscriptions sorted by event name, or `nil` when the subscriber does not exist.
    func subscriptions(of id: SubscriberID) async throws -> [(event: EventName, ignoreMessage: Bool)]?

    /// The `ignore_message` of one subscription, or `nil` when the subscriber or the subscription does not exist.
    func subscription(of id: SubscriberID, to event: EventName) async throws -> Bool?

    /// Subscribes (creating the event on its first subscription, `created = now`) or overwrites the option.
    func subscribe(_ id: SubscriberID, to event: EventName, ignoreMessage: Bool, now: Int64) async throws -> SubscribeResult

    /// Removes one subscription (if any), deleting the event when it was the last.
    /// - Returns: `false` when the subscriber does not exist.
    func unsubscribe(_ id: SubscriberID, from event: EventName) async throws -> Bool

    /// Makes the subscriber's subscription set equal to `subscriptions`, atomically (§4.8).
    /// - Returns: `false` when the subscriber does not exist (nothing changed).
    func replaceSubscriptions(of id: SubscriberID, with subscriptions: [(event: EventName, ignoreMessage: Bool)], now: Int64) async throws -> Bool
}
