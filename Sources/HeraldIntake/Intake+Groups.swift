import HeraldCore
import HeraldStore

extension Intake {
    /// Publishes a prepared payload to the subscribers of provider `proto` subscribed to any of
    /// `events`, each once (Choominator's notifications, compat.md §5.3): committed as one job with
    /// `origin`, counted as one publish in each listed event that exists. Server-Sent Events
    /// listeners are not told: the payload is not a pushd event.
    ///
    /// - Returns: the job's id, or `nil` when no subscriber of `proto` is in any of the events
    ///   (nothing was stored).
    /// - Throws: ``IntakeError``: unknown provider, overloaded, or the store unavailable; nothing
    ///   is published when it throws.
    @discardableResult
    public func publish(
        _ payload: PreparedPayload, toGroups events: [EventName], proto: String, origin: DeliveryOrigin
    ) async throws(IntakeError) -> Int64? {
        do {
            let job = try await enqueue(payload, toGroups: events, proto: proto, origin: origin)
            metrics.publishAccepted()
            return job
        } catch {
            metrics.publishRejected(error)
            throw error
        }
    }

    private func enqueue(
        _ payload: PreparedPayload, toGroups events: [EventName], proto: String, origin: DeliveryOrigin
    ) async throws(IntakeError) -> Int64? {
        guard providers[proto] != nil else { throw .unknownProvider(proto) }
        guard !events.isEmpty else { return nil }
        try await gate.admit()
        var payload = payload
        payload.publishID = DeliveryContent.newPublishID()
        let result = try await committing("cannot store a publish", metadata: ["origin": "\(origin)"]) {
            try await store.enqueue(.groups(events, proto: proto), content: .prepared(payload), origin: origin, now: clock.nowSeconds())
        }
        if case .queued(let jobID) = result { return jobID }
        return nil
    }
}
