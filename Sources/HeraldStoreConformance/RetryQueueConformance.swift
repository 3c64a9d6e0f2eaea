import HeraldCore
import HeraldStore
import Testing

/// `RetryQueue`: scheduling, leased claims, rescheduling, completion, the next due time and the count due (§11.4).
public enum RetryQueueConformance {
    /// retries round-trip and are claimed when due, earliest first; those due and free are counted
    public static func scheduleAndClaim(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 3)
            #expect(try await store.nextRetryDue() == nil)
            try await store.scheduleRetries([
                retry(ids[0], dueAt: 1_000, statistics: event("sport")),
                retry(ids[1], dueAt: 3_000),
                retry(ids[2], dueAt: 2_000, statistics: .broadcast, attempts: 2),
            ])
            #expect(try await store.backlog() == Backlog(jobs: 0, retries: 3))
            #expect(try await store.nextRetryDue() == 1_000)
            #expect(try await store.claimDueRetries(limit: 10, lease: Lease(owner: "a", expiresAt: 60_000), nowMillis: 999).isEmpty)
            #expect(try await store.retriesDue(nowMillis: 999) == 0)
            #expect(try await store.retriesDue(nowMillis: 2_500) == 2)

            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "a", expiresAt: 60_000), nowMillis: 2_500)
            #expect(claimed.map(\.subscriberID) == [ids[0], ids[2]])
            #expect(claimed.map(\.dueAt) == [1_000, 2_000])
            let first = try #require(claimed.first)
            var expected = retry(ids[0], dueAt: 1_000, statistics: event("sport"))
            expected.id = first.id
            #expect(first == expected)
            #expect(claimed.last?.statisticsEvent == .broadcast)
            #expect(claimed.last?.attempts == 2)
            #expect(Set(claimed.map(\.id)).count == 2)

            // The unclaimed one is next.
            #expect(try await store.nextRetryDue() == 3_000)
            // Held ones are not due for anyone else until their lease ends.
            #expect(try await store.retriesDue(nowMillis: 2_500) == 0)
            #expect(try await store.retriesDue(nowMillis: 5_000) == 1)
            #expect(try await store.retriesDue(nowMillis: 60_001) == 3)
            #expect(try await store.claimDueRetries(limit: 10, lease: Lease(owner: "b", expiresAt: 60_000), nowMillis: 2_500).isEmpty)
            let limited = try await store.claimDueRetries(limit: 1, lease: Lease(owner: "b", expiresAt: 60_000), nowMillis: 5_000)
            #expect(limited.map(\.subscriberID) == [ids[1]])
        }
    }

    /// reschedule releases the lease; complete removes the retry
    public static func rescheduleAndComplete(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            try await store.scheduleRetries([retry(id, dueAt: 1_000)])
            let entry = try #require(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "a", expiresAt: 90_000), nowMillis: 1_000).first)

            try await store.rescheduleRetry(id: entry.id, attempts: 2, dueAt: 4_000, lastReason: "ServiceUnavailable")
            #expect(try await store.nextRetryDue() == 4_000)
            // Released: another worker takes it when due, long before the old lease ends.
            #expect(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "b", expiresAt: 90_000), nowMillis: 3_999).isEmpty)
            let again = try #require(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "b", expiresAt: 90_000), nowMillis: 4_000).first)
            #expect(again.id == entry.id)
            #expect(again.attempts == 2)
            #expect(again.lastReason == "ServiceUnavailable")
            #expect(again.badge == entry.badge)
            #expect(again.silent == entry.silent)

            try await store.completeRetry(id: entry.id)
            #expect(try await store.backlog().retries == 0)
            #expect(try await store.nextRetryDue() == nil)
        }
    }

    /// a leased retry is claimable again once its lease expires, and nextRetryDue says when
    public static func abandonedLease(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            try await store.scheduleRetries([retry(id, dueAt: 1_000)])
            let entry = try #require(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "crashed", expiresAt: 5_000), nowMillis: 1_000).first)

            #expect(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "b", expiresAt: 90_000), nowMillis: 5_000).isEmpty)
            let due = try #require(try await store.nextRetryDue())
            #expect(due > 5_000)
            #expect(due <= 5_001)
            let taken = try await store.claimDueRetries(limit: 1, lease: Lease(owner: "b", expiresAt: 90_000), nowMillis: due)
            #expect(taken.map(\.id) == [entry.id])
        }
    }

    /// retries of missing subscribers are not kept
    public static func retriesFollowTheirSubscriber(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            try await store.scheduleRetries([retry(id, dueAt: 1_000), retry(SubscriberID(rawValue: "gone"), dueAt: 1_000)])
            #expect(try await store.backlog().retries == 1)
            #expect(try await store.deleteSubscriber(id))
            #expect(try await store.backlog().retries == 0)
            #expect(try await store.nextRetryDue() == nil)
            try await store.scheduleRetries([])
            #expect(try await store.backlog().retries == 0)
        }
    }
}
