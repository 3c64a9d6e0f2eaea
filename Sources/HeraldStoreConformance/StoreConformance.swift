import HeraldCore
import HeraldStore
import Testing

/// The store as a whole: health and the "empty Herald holds no rows" invariant (§16).
///
/// The conformance suite is every `*Conformance` enum of this target: one `public static`
/// check per behaviour, named in its doc comment as its test is named. A check uses only the
/// `HeraldStore` protocol and a fresh store from its ``StoreBackend``, so every backend runs
/// the same checks unchanged, each from a one-line `@Test` of its own test target (see
/// `Tests/HeraldStoreSQLiteTests/SQLiteConformanceTests.swift`).
public enum StoreConformance {
    /// a new store is empty and healthy
    public static func emptyStore(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            try await store.ping()
            #expect(try await store.counts() == .empty)
            #expect(try await store.backlog() == Backlog(jobs: 0, retries: 0))
            #expect(try await store.eventNames().isEmpty)
        }
    }

    /// after deleting everything, counts() is all zeros
    public static func deletingEverythingEmptiesTheStore(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 5)
            for (index, id) in ids.enumerated() {
                _ = try await store.replaceSubscriptions(
                    of: id, with: [(event("sport"), index % 2 == 0), (event("e\(index)"), false), (.unicast(ids[0]), false)], now: TestTime.t0
                )
            }
            _ = try await store.subscribe(ids[1], to: .broadcast, ignoreMessage: false, now: TestTime.t0)
            _ = try await store.enqueue(.subscribers(event("sport")), notification: sampleNotification(), now: TestTime.t0)
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            for id in ids {
                _ = try await store.enqueue(.unicast(id), notification: sampleNotification(), now: TestTime.t0)
            }
            _ = try await store.enqueue(.test(ids[2]), notification: sampleNotification("test"), now: TestTime.t0)
            try await store.scheduleRetries(ids.map { retry($0, dueAt: 1_000, statistics: event("sport")) })
            _ = try await store.incrementBadges(expecting: ids.map { BadgeExpectation(id: $0, storedBadge: nil) })
            _ = try await store.record(
                [DeliveryRecord(subscriberID: ids[3], proto: "apns", token: "t", statisticsEvent: event("sport"),
                                effect: .deadToken(reason: "BadDeviceToken", status: 400, invalidSince: nil))],
                maxFailures: 5, now: TestTime.t0
            )
            let busy = try await store.counts()
            #expect(busy.subscribers == 4)
            #expect(busy.events > 0)
            #expect(busy.jobs == 8)
            #expect(busy.retries == 4)

            // Fan-out finishes...
            let jobs = try await store.claimJobs(limit: 100, lease: Lease(owner: "w", expiresAt: 10_000), nowMillis: 0)
            #expect(jobs.count == 8)
            for job in jobs {
                try await store.completeJob(jobID: job.id, owner: "w")
            }
            // ...and every subscriber is deleted, by the API or by unregistration.
            for id in ids {
                _ = try await store.deleteSubscriber(id)
            }
            #expect(try await store.counts() == .empty)
            #expect(try await store.eventNames().isEmpty)
            #expect(try await store.statistics(of: .broadcast) == nil)
            #expect(try await store.nextRetryDue() == nil)
        }
    }
}
