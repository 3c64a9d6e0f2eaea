import HeraldCore
import HeraldStore
import Testing

/// `PublishQueue`: enqueueing, leases, keyset audience pages, completion, backlog (§6).
public enum PublishQueueConformance {
    /// enqueue stores a job only for a non-empty audience, ids increasing
    public static func enqueue(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.enqueue(.subscribers(event("e")), notification: sampleNotification(), now: TestTime.t0) == .noAudience)
            #expect(try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0) == .noAudience)
            #expect(try await store.backlog() == Backlog(jobs: 0, retries: 0))

            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0)
            var jobIDs: [Int64] = []
            for audience in [PublishAudience.subscribers(event("e")), .broadcast, .unicast(id), .test(id)] {
                guard case .queued(let jobID) = try await store.enqueue(audience, notification: sampleNotification(), now: TestTime.t0) else {
                    Issue.record("\(audience) was not queued")
                    return
                }
                jobIDs.append(jobID)
            }
            #expect(jobIDs == jobIDs.sorted())
            #expect(Set(jobIDs).count == 4)
            #expect(try await store.backlog() == Backlog(jobs: 4, retries: 0))
        }
    }

    /// claimed jobs round-trip and are claimed oldest first, once
    public static func claimJobs(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0)
            let audiences: [PublishAudience] = [.subscribers(event("e")), .broadcast, .unicast(id), .test(id)]
            for (offset, audience) in audiences.enumerated() {
                _ = try await store.enqueue(audience, notification: sampleNotification("n\(offset)"), now: TestTime.t0 + Int64(offset))
            }

            let a = Lease(owner: "worker-a", expiresAt: 60_000)
            let first = try await store.claimJobs(limit: 3, lease: a, nowMillis: 1_000)
            #expect(first.map(\.audience) == Array(audiences.prefix(3)))
            #expect(first.map(\.content) == (0..<3).map { .event(sampleNotification("n\($0)")) })
            #expect(first.map(\.publishedAt) == [TestTime.t0, TestTime.t0 + 1, TestTime.t0 + 2])
            #expect(first.allSatisfy { $0.cursor == nil })
            #expect(first.map(\.id) == first.map(\.id).sorted())

            let b = Lease(owner: "worker-b", expiresAt: 60_000)
            let second = try await store.claimJobs(limit: 10, lease: b, nowMillis: 1_000)
            #expect(second.map(\.audience) == [.test(id)])
            #expect(try await store.claimJobs(limit: 10, lease: b, nowMillis: 2_000).isEmpty)
            #expect(try await store.claimJobs(limit: 0, lease: b, nowMillis: 2_000).isEmpty)
        }
    }

    /// an expired lease passes to another worker; the old owner cannot checkpoint or complete
    public static func leaseExpiry(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 3).sorted()
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            let job = try #require(try await store.claimJobs(limit: 1, lease: Lease(owner: "a", expiresAt: 5_000), nowMillis: 1_000).first)

            #expect(try await store.checkpoint(jobID: job.id, cursor: ids[0], lease: Lease(owner: "a", expiresAt: 10_000)))
            // Renewed to 10 000: still held at 9 000, and at 10 000 itself (it expires *before* now).
            #expect(try await store.claimJobs(limit: 1, lease: Lease(owner: "b", expiresAt: 20_000), nowMillis: 9_000).isEmpty)
            #expect(try await store.claimJobs(limit: 1, lease: Lease(owner: "b", expiresAt: 20_000), nowMillis: 10_000).isEmpty)

            let taken = try #require(try await store.claimJobs(limit: 1, lease: Lease(owner: "b", expiresAt: 20_000), nowMillis: 10_001).first)
            #expect(taken.id == job.id)
            #expect(taken.cursor == ids[0])

            #expect(try await store.checkpoint(jobID: job.id, cursor: ids[1], lease: Lease(owner: "a", expiresAt: 30_000)) == false)
            try await store.completeJob(jobID: job.id, owner: "a")
            #expect(try await store.backlog().jobs == 1)

            #expect(try await store.checkpoint(jobID: job.id, cursor: ids[1], lease: Lease(owner: "b", expiresAt: 30_000)))
            let page = try await store.audience(of: taken, after: ids[1], limit: 10)
            #expect(page.map(\.subscriber.id) == [ids[2]])
            try await store.completeJob(jobID: job.id, owner: "b")
            #expect(try await store.backlog().jobs == 0)
            #expect(try await store.checkpoint(jobID: job.id, cursor: ids[2], lease: Lease(owner: "b", expiresAt: 30_000)) == false)
        }
    }

    /// event audience: 1,234 subscribers in pages of 100, each once, with their silent flags
    public static func eventAudiencePages(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 1_300)
            var silent: [SubscriberID: Bool] = [:]
            for (index, id) in ids.prefix(1_234).enumerated() {
                silent[id] = index % 3 == 0
                _ = try await store.subscribe(id, to: event("big"), ignoreMessage: index % 3 == 0, now: TestTime.t0)
            }
            // Subscribed elsewhere only: never part of the audience.
            for id in ids.suffix(66) {
                _ = try await store.subscribe(id, to: event("other"), ignoreMessage: false, now: TestTime.t0)
            }
            _ = try await store.enqueue(.subscribers(event("big")), notification: sampleNotification("big"), now: TestTime.t0)
            let job = try await claimOnlyJob(store)

            let (members, pages) = try await readAudience(store, of: job, pageSize: 100)
            #expect(pages == 13)
            #expect(members.count == 1_234)
            #expect(Set(members.map(\.subscriber.id)) == Set(silent.keys))
            #expect(members.map(\.subscriber.id) == members.map(\.subscriber.id).sorted())
            #expect(members.allSatisfy { silent[$0.subscriber.id] == $0.silent })
            #expect(members.filter(\.silent).count == 412)
            // Members carry the stored subscriber.
            let sample = try #require(members.first)
            #expect(try await store.subscriber(sample.subscriber.id) == sample.subscriber)
        }
    }

    /// broadcast audience is every subscriber once, never silent, whatever the subscriptions
    public static func broadcastAudience(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 250)
            for (index, id) in ids.enumerated() where index % 2 == 0 {
                _ = try await store.subscribe(id, to: event("a"), ignoreMessage: true, now: TestTime.t0)
                _ = try await store.subscribe(id, to: event("b"), ignoreMessage: true, now: TestTime.t0)
                _ = try await store.subscribe(id, to: .broadcast, ignoreMessage: true, now: TestTime.t0)
            }
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            let job = try await claimOnlyJob(store)
            let (members, pages) = try await readAudience(store, of: job, pageSize: 64)
            #expect(pages == 4)
            #expect(members.map(\.subscriber.id) == ids.sorted())
            #expect(!members.contains { $0.silent })
        }
    }

    /// unicast and test audiences are the one subscriber, not silent
    public static func singleAudiences(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 3)
            let id = ids[1]
            _ = try await store.subscribe(id, to: .unicast(id), ignoreMessage: true, now: TestTime.t0)
            _ = try await store.enqueue(.unicast(id), notification: sampleNotification(), now: TestTime.t0)
            _ = try await store.enqueue(.test(id), notification: sampleNotification("test"), now: TestTime.t0)
            let jobs = try await store.claimJobs(limit: 10, lease: Lease(owner: "w", expiresAt: 10_000), nowMillis: 0)
            try #require(jobs.count == 2)
            for job in jobs {
                let page = try await store.audience(of: job, after: nil, limit: 100)
                #expect(page.map(\.subscriber.id) == [id])
                #expect(page.map(\.silent) == [false])
                #expect(try await store.audience(of: job, after: id, limit: 100).isEmpty)
            }
            // The subscriber went away before fan-out: an empty audience, not an error.
            #expect(try await store.deleteSubscriber(id))
            #expect(try await store.audience(of: jobs[0], after: nil, limit: 100).isEmpty)
        }
    }

    /// completeJob removes the job for its owner only
    public static func completeJob(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await registerMany(store, count: 1)
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            let jobs = try await store.claimJobs(limit: 1, lease: Lease(owner: "a", expiresAt: 10_000), nowMillis: 0)
            let job = try #require(jobs.first)
            try await store.completeJob(jobID: job.id, owner: "b")
            #expect(try await store.backlog().jobs == 2)
            try await store.completeJob(jobID: job.id, owner: "a")
            #expect(try await store.backlog().jobs == 1)
            // The remaining job is the other one, still claimable.
            let rest = try await store.claimJobs(limit: 10, lease: Lease(owner: "a", expiresAt: 10_000), nowMillis: 0)
            #expect(rest.count == 1)
            #expect(rest.first?.id != job.id)
        }
    }
}
