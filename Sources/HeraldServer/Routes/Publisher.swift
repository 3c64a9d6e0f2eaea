import HeraldCore
import HeraldPipeline
import HeraldStore
import Logging

/// Publishes events: validates and compiles the payload, commits the job durably, then
/// streams it to SSE listeners and wakes the fan-out (§6.1). HTTP, UDP and the compat
/// front-ends all publish through here.
public struct Publisher: Sendable {
    let store: any HeraldStore
    let hub: EventStreamHub?
    let wakeUp: WakeUpSignal
    let logger: Logger
    let metrics: ServerMetrics?
    let gate: BacklogGate
    let clock: WallClock

    /// Creates a publisher; `maxBacklog` bounds accepted-but-undone work (0: no bound).
    public init(
        store: any HeraldStore, hub: EventStreamHub?, wakeUp: WakeUpSignal, logger: Logger, metrics: ServerMetrics? = nil, maxBacklog: Int = 0,
        clock: WallClock = .system
    ) {
        self.clock = clock
        self.metrics = metrics
        self.gate = BacklogGate(store: store, limit: maxBacklog)
        self.store = store
        self.hub = hub
        self.wakeUp = wakeUp
        self.logger = logger
    }

    /// Publishes `payload` to `event`.
    ///
    /// - Throws: ``APIError`` 400 for an invalid payload, 404 for a unicast to an unknown id,
    ///   503 when the store cannot be used. Nothing is published when it throws.
    public func publish(_ payload: BodyValue, to event: EventName) async throws(APIError) {
        do {
            try await enqueue(payload, to: event)
            metrics?.publishAccepted()
        } catch {
            metrics?.publishRejected(status: Int(error.status.code))
            throw error
        }
    }

    private func enqueue(_ payload: BodyValue, to event: EventName) async throws(APIError) {
        let notification: PublishedEvent
        do {
            notification = try PayloadCompiler.compile(payload, event: event.rawValue)
        } catch {
            throw .badRequest(error.reason)
        }
        try await gate.admit()
        let audience: PublishAudience = switch event.audience {
        case .subscribers: .subscribers(event)
        case .broadcast: .broadcast
        case .unicast(let id): .unicast(id)
        }
        let result: EnqueueResult
        do {
            result = try await store.enqueue(audience, notification: notification, now: clock.nowSeconds())
        } catch {
            logger.error("cannot store a publish", metadata: ["error": "\(error)"])
            throw .unavailable
        }
        switch result {
        case .unknownSubscriber:
            if case .unicast(let id) = event.audience { throw .json(.notFound, "Unknown subscriber \(id)") }
            throw .notFound
        case .queued:
            hub?.publish(notification)
            wakeUp.notify()
        case .noAudience:
            hub?.publish(notification)
        }
    }

    /// Queues the test notification of `POST /subscriber/:id/test` for one subscriber.
    /// - Returns: `false` when there is no such subscriber.
    public func publishTest(to id: SubscriberID) async throws(APIError) -> Bool {
        let payload = BodyValue.object([("msg", .string("Test")), ("data.test", .string("ok"))])
        let notification: PublishedEvent
        do {
            notification = try PayloadCompiler.compile(payload, event: EventName.test.rawValue)
        } catch {
            throw .badRequest(error.reason)
        }
        try await gate.admit()
        do {
            let result = try await store.enqueue(.test(id), notification: notification, now: clock.nowSeconds())
            guard case .queued = result else { return false }
            wakeUp.notify()
            return true
        } catch {
            throw .unavailable
        }
    }

    /// Deletes an event (`DELETE /event/:event`, §4.16).
    /// - Returns: `false` when there was nothing to delete.
    public func deleteEvent(_ event: EventName) async throws(APIError) -> Bool {
        do {
            return try await store.deleteEvent(event)
        } catch {
            throw .unavailable
        }
    }
}
