import HeraldCore
import HeraldStore
import Testing

/// `StoreRuntime`: the wake-up stream a node acts on, and the store's clock.
public enum StoreRuntimeConformance {
    /// committed jobs, queued deliveries and announced events are each reported on the wake-up stream
    public static func wakeUpsReportCommittedWork(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            var wakeUps = store.wakeUps().makeAsyncIterator()
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            // No audience: nothing stored, no wake-up.
            #expect(try await store.enqueue(.subscribers(event("nobody")), notification: sampleNotification(), now: TestTime.t0) == .noAudience)
            guard case .queued = try await store.enqueue(.unicast(id), notification: sampleNotification(), now: TestTime.t0) else {
                Issue.record("the unicast was not queued")
                return
            }
            #expect(await wakeUps.next() == .jobs)
            try await store.scheduleRetries([retry(id, dueAt: 1_000)])
            #expect(await wakeUps.next() == .deliveries)
            try await store.announce(sampleNotification("live"))
            #expect(await wakeUps.next() == .event(sampleNotification("live")))
        }
    }

    /// every subscriber of the wake-up stream gets every wake-up
    public static func everySubscriberGetsEveryWakeUp(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            var first = store.wakeUps().makeAsyncIterator()
            var second = store.wakeUps().makeAsyncIterator()
            try await store.announce(sampleNotification("a"))
            try await store.announce(sampleNotification("b"))
            #expect(await first.next() == .event(sampleNotification("a")))
            #expect(await first.next() == .event(sampleNotification("b")))
            #expect(await second.next() == .event(sampleNotification("a")))
            #expect(await second.next() == .event(sampleNotification("b")))
        }
    }
}
