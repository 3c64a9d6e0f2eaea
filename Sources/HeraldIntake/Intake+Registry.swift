import HeraldCore
import HeraldStore
import Logging

/// The registry's writes (pushd-api.md §4.4–4.11) and the dead letters' (replay, deletion): every
/// change a front door makes goes through the intake, like publishes and sends.
extension Intake {
    // MARK: - Subscribers

    /// Merges `fields` into the subscriber, refreshes its `updated` time and resets its failure
    /// counter (§4.4).
    /// - Returns: `false` when there is no such subscriber.
    public func updateSubscriber(_ id: SubscriberID, fields: SubscriberFields) async throws(IntakeError) -> Bool {
        try await committing("cannot update a subscriber") { try await store.updateSubscriber(id, fields: fields, now: clock.nowSeconds()) }
    }

    /// Unregisters a subscriber with its subscriptions and pending retries (§4.5).
    /// - Returns: `false` when there is no such subscriber.
    public func deleteSubscriber(_ id: SubscriberID) async throws(IntakeError) -> Bool {
        try await committing("cannot delete a subscriber") { try await store.deleteSubscriber(id) }
    }

    // MARK: - Subscriptions

    /// Subscribes a subscriber to `event` (§4.10). An existing subscription gets `ignoreMessage`
    /// unless `keepingOption`, when it is left as it is (Choominator's registration: a REST client
    /// may have made it silent on purpose).
    public func subscribe(
        _ id: SubscriberID, to event: EventName, ignoreMessage: Bool, keepingOption: Bool = false
    ) async throws(IntakeError) -> SubscribeResult {
        try await committing("cannot store a subscription") {
            if keepingOption, try await store.subscription(of: id, to: event) != nil { return .updated }
            return try await store.subscribe(id, to: event, ignoreMessage: ignoreMessage, now: clock.nowSeconds())
        }
    }

    /// Removes one subscription (§4.11).
    /// - Returns: `false` when the subscriber does not exist.
    public func unsubscribe(_ id: SubscriberID, from event: EventName) async throws(IntakeError) -> Bool {
        try await committing("cannot remove a subscription") { try await store.unsubscribe(id, from: event) }
    }

    /// Makes a subscriber's subscriptions exactly `subscriptions`, atomically (§4.8).
    /// - Returns: `false` when the subscriber does not exist (nothing changed).
    public func replaceSubscriptions(
        of id: SubscriberID, with subscriptions: [(event: EventName, ignoreMessage: Bool)]
    ) async throws(IntakeError) -> Bool {
        try await committing("cannot replace subscriptions") {
            try await store.replaceSubscriptions(of: id, with: subscriptions, now: clock.nowSeconds())
        }
    }

    // MARK: - Dead letters

    /// Turns up to `limit` matching dead letters into deliveries due now, with a fresh attempt
    /// budget, and removes them.
    public func replayDeadLetters(matching filter: DeadLetterFilter, limit: Int) async throws(IntakeError) -> DeadLetterReplay {
        try await committing("cannot replay dead letters") {
            try await store.replayDeadLetters(matching: filter, limit: limit, nowMillis: clock.nowMillis())
        }
    }

    /// Deletes up to `limit` matching dead letters.
    /// - Returns: how many were deleted.
    public func deleteDeadLetters(matching filter: DeadLetterFilter, limit: Int) async throws(IntakeError) -> Int {
        try await committing("cannot delete dead letters") { try await store.deleteDeadLetters(matching: filter, limit: limit) }
    }

    // MARK: - The store's refusals

    /// Runs a store operation, answering any failure as ``IntakeError/Code/unavailable`` (logged
    /// as `failure` when given): the one place the intake maps the store's errors.
    func committing<Result>(
        _ failure: String? = nil, metadata: Logger.Metadata = [:], _ operation: () async throws -> Result
    ) async throws(IntakeError) -> Result {
        do {
            return try await operation()
        } catch {
            if let failure { logger.error("\(failure)", metadata: metadata.merging(["error": "\(error)"]) { $1 }) }
            throw .unavailable
        }
    }
}
