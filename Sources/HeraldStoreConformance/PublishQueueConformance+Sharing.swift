import HeraldCore
import HeraldStore
import Testing

extension PublishQueueConformance {
    /// a publish shared out: boundaries cut the audience into parts; the parts are jobs of their own, claimable by others, covering it once
    public static func sharedPublish(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 25).sorted()
            for id in ids { _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0) }
            _ = try await store.enqueue(.subscribers(event("e")), notification: sampleNotification("shared"), now: TestTime.t0)
            let owner = Lease(owner: "a", expiresAt: 60_000)
            let job = try #require(try await store.claimJobs(limit: 1, lease: owner, nowMillis: 1_000).first)

            // 25 members in parts of 10: cut after the 10th and the 20th; a limit keeps the first cuts only.
            let boundaries = try await store.audienceBoundaries(of: job, every: 10, limit: 10)
            #expect(boundaries == [ids[9], ids[19]])
            #expect(try await store.audienceBoundaries(of: job, every: 10, limit: 1) == [ids[9]])
            // The last member is never a cut: that part would be empty.
            #expect(try await store.audienceBoundaries(of: job, every: 5, limit: 10) == [ids[4], ids[9], ids[14], ids[19]])
            #expect(try await store.audienceBoundaries(of: job, every: 100, limit: 10).isEmpty)
            // A broadcast is cut alike, over every subscriber (here the same 25).
            var broadcast = job
            broadcast.audience = .broadcast
            #expect(try await store.audienceBoundaries(of: broadcast, every: 10, limit: 10) == [ids[9], ids[19]])
            #expect(try await store.audienceBoundaries(of: broadcast, every: 5, limit: 3) == [ids[4], ids[9], ids[14]])
            #expect(try await store.audienceBoundaries(of: broadcast, every: 25, limit: 10).isEmpty)

            #expect(try await store.shareJob(jobID: job.id, boundaries: boundaries, lease: Lease(owner: "b", expiresAt: 60_000)) == false,
                    "only the job's holder shares it")
            // The holder may have checkpointed its first page while the cuts were chosen, but not
            // reached the first cut.
            #expect(try await store.checkpoint(jobID: job.id, cursor: ids[9], lease: owner))
            #expect(try await store.shareJob(jobID: job.id, boundaries: boundaries, lease: owner) == false,
                    "a job checkpointed at its first cut is not shared")
            #expect(try await store.checkpoint(jobID: job.id, cursor: ids[4], lease: owner))
            #expect(try await store.shareJob(jobID: job.id, boundaries: boundaries, lease: owner))
            #expect(try await store.shareJob(jobID: job.id, boundaries: boundaries, lease: owner) == false, "a job is shared once")
            #expect(try await store.backlog().jobs == 3)

            let parts = try await store.claimJobs(limit: 10, lease: Lease(owner: "b", expiresAt: 60_000), nowMillis: 1_000)
            #expect(parts.map(\.cursor) == [ids[9], ids[19]])
            #expect(parts.map(\.end) == [ids[19], nil])
            #expect(parts.allSatisfy { $0.content == .event(sampleNotification("shared")) && $0.audience == .subscribers(event("e")) })
            #expect(parts.allSatisfy { $0.publishedAt == TestTime.t0 && $0.id > job.id })

            // The holder's job now ends at the first cut, as a claim after a crash would read it.
            try await store.releaseLeases(owner: "a")
            let kept = try #require(try await store.claimJobs(limit: 1, lease: Lease(owner: "c", expiresAt: 60_000), nowMillis: 1_000).first)
            #expect(kept.id == job.id && kept.end == ids[9] && kept.cursor == ids[4])

            // Read to their ends from their cursors, the three parts cover the rest of the audience once.
            var covered: [SubscriberID] = []
            for part in [kept] + parts {
                let page = try await store.audience(of: part, after: part.cursor, limit: 100)
                covered += page.map(\.subscriber.id).filter { member in part.end.map { member <= $0 } ?? true }
            }
            #expect(covered == Array(ids.dropFirst(5)))

            // Audiences that are not cut: a single subscriber.
            _ = try await store.enqueue(.unicast(ids[0]), notification: sampleNotification(), now: TestTime.t0)
            let unicast = try #require(try await store.claimJobs(limit: 1, lease: owner, nowMillis: 1_000).first)
            #expect(try await store.audienceBoundaries(of: unicast, every: 1, limit: 10).isEmpty)
        }
    }
}
