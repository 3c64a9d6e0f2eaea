import HeraldCore
import HeraldStore
import Testing

/// `DeliverySettlement`: a group of outcomes, the retries they schedule and the checkpoints of
/// their jobs in one transaction; leases renewed; members and subscribers read by id.
public enum SettlementConformance {
    /// one settlement records outcomes, schedules, reschedules and ends retries, and checkpoints its job
    public static func settleEverything(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 5).sorted()
            for id in ids { _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0) }
            _ = try await store.enqueue(.subscribers(event("e")), notification: sampleNotification(), now: TestTime.t0)
            let job = try await claimOnlyJob(store)
            try await store.scheduleRetries([retry(ids[3], dueAt: 0), retry(ids[4], dueAt: 0)])
            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "worker-a", expiresAt: 10_000), nowMillis: 1_000)
            try #require(claimed.count == 2)

            var settlement = Settlement()
            settlement.records = [
                DeliveryRecord(subscriberID: ids[0], proto: "apns", token: "t0", statisticsEvent: event("e"), effect: .delivered),
                DeliveryRecord(
                    subscriberID: ids[1], proto: "apns", token: "t1", statisticsEvent: event("e"),
                    effect: .deadToken(reason: "Unregistered", status: 410, invalidSince: nil)),
            ]
            settlement.newRetries = [retry(ids[2], dueAt: 5_000, statistics: event("e"))]
            settlement.rescheduledRetries = [RetryReschedule(id: claimed[0].id, attempts: 3, dueAt: 7_000, lastReason: "again")]
            settlement.finishedRetries = [claimed[1].id]
            settlement.jobs = [JobCheckpoint(
                jobID: job.id, lease: Lease(owner: "worker-a", expiresAt: 20_000), cursor: ids[4], pending: .listed([ids[2]]), complete: false)]
            let summary = try await store.settle(settlement, maxFailures: 5, now: TestTime.t0 + 1)

            #expect(summary.unregistered.map(\.id) == [ids[1]])
            #expect(summary.lostJobs.isEmpty)
            let statistics = try #require(try await store.statistics(of: event("e")))
            #expect(statistics.delivered == 1)
            #expect(statistics.failed == 1)
            #expect(try await store.subscriber(ids[1]) == nil, "the dead token was unregistered")
            let feedback = try await store.feedback(after: nil, since: nil, limit: 10)
            #expect(feedback.map(\.action) == [.unregistered])
            #expect(try await store.backlog() == Backlog(jobs: 1, retries: 2), "one new, one rescheduled, one ended")
            #expect(try await store.nextRetryDue() == 5_000)
            let due = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "worker-b", expiresAt: 30_000), nowMillis: 8_000)
            #expect(Set(due.map(\.subscriberID)) == [ids[2], ids[3]])
            #expect(due.first { $0.subscriberID == ids[3] }?.attempts == 3, "the reschedule released its lease")

            // A later claim of the job (its lease expired) resumes from the checkpoint.
            let resumed = try #require(try await store.claimJobs(limit: 1, lease: Lease(owner: "worker-b", expiresAt: 90_000), nowMillis: 25_000).first)
            #expect(resumed.cursor == ids[4])
            #expect(resumed.pending == .listed([ids[2]]))
        }
    }

    /// pending members written as a range or as none come back as written
    public static func pendingFormsRoundTrip(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 4).sorted()
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            let job = try await claimOnlyJob(store, owner: "worker-a")
            // Each form is written by the job's holder, then read back by the worker taking the job over.
            var holder = Lease(owner: "worker-a", expiresAt: 10_000)
            let forms: [PendingMembers] = [.range(after: ids[0], except: [ids[2]]), .range(after: nil, except: []), .none, .listed([ids[1]])]
            for (round, pending) in forms.enumerated() {
                var settlement = Settlement()
                settlement.jobs = [JobCheckpoint(jobID: job.id, lease: holder, cursor: ids[3], pending: pending, complete: false)]
                #expect(try await store.settle(settlement, maxFailures: 5, now: TestTime.t0).lostJobs.isEmpty)
                let next = Lease(owner: "worker-\(round)", expiresAt: holder.expiresAt + 20_000)
                let resumed = try #require(try await store.claimJobs(limit: 1, lease: next, nowMillis: holder.expiresAt + 1).first)
                #expect(resumed.pending == pending)
                #expect(resumed.cursor == ids[3])
                holder = next
            }
        }
    }

    /// a checkpoint is written only by the job's holder; a complete one removes the job
    public static func checkpointsNeedTheLease(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2).sorted()
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            let job = try await claimOnlyJob(store, owner: "worker-a")

            var stale = Settlement()
            stale.records = [DeliveryRecord(subscriberID: ids[0], proto: "apns", token: "t", statisticsEvent: .broadcast, effect: .delivered)]
            stale.jobs = [JobCheckpoint(jobID: job.id, lease: Lease(owner: "worker-b", expiresAt: 20_000), cursor: ids[1], pending: .none, complete: true)]
            let summary = try await store.settle(stale, maxFailures: 5, now: TestTime.t0)
            #expect(summary.lostJobs == [job.id])
            #expect(try await store.backlog().jobs == 1, "another worker's checkpoint changed nothing")
            #expect(try await store.statistics(of: .broadcast)?.delivered == 1, "the outcomes themselves are recorded")

            var mine = Settlement()
            mine.jobs = [JobCheckpoint(jobID: job.id, lease: Lease(owner: "worker-a", expiresAt: 20_000), cursor: ids[1], pending: .none, complete: true)]
            #expect(try await store.settle(mine, maxFailures: 5, now: TestTime.t0).lostJobs.isEmpty)
            #expect(try await store.backlog().jobs == 0)
            #expect(try await store.settle(Settlement(), maxFailures: 5, now: TestTime.t0) == SettlementSummary())
        }
    }

    /// leases of jobs and claimed retries are renewed for their owner only
    public static func renewLeases(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            _ = try await claimOnlyJob(store, owner: "worker-a")  // lease until 10,000
            try await store.scheduleRetries([retry(ids[0], dueAt: 0), retry(ids[1], dueAt: 0)])
            #expect(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "worker-a", expiresAt: 10_000), nowMillis: 1_000).count == 1)
            #expect(try await store.claimDueRetries(limit: 1, lease: Lease(owner: "worker-b", expiresAt: 10_000), nowMillis: 1_000).count == 1)

            try await store.renewLeases(owner: "worker-a", expiresAt: 50_000)
            #expect(try await store.claimJobs(limit: 1, lease: Lease(owner: "worker-c", expiresAt: 90_000), nowMillis: 20_000).isEmpty)
            let taken = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "worker-c", expiresAt: 90_000), nowMillis: 20_000)
            #expect(taken.count == 1, "only worker-b's expired lease passes on")
        }
    }

    /// members are read by id within the audience; subscribers by id
    public static func readByID(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 4).sorted()
            _ = try await store.subscribe(ids[0], to: event("e"), ignoreMessage: true, now: TestTime.t0)
            _ = try await store.subscribe(ids[2], to: event("e"), ignoreMessage: false, now: TestTime.t0)
            _ = try await store.enqueue(.subscribers(event("e")), notification: sampleNotification(), now: TestTime.t0)
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            let jobs = try await store.claimJobs(limit: 2, lease: Lease(owner: "a", expiresAt: 10_000), nowMillis: 1_000)
            try #require(jobs.count == 2)

            let gone = SubscriberID(rawValue: "nobody")
            let members = try await store.members(of: jobs[0], among: [ids[2], ids[1], ids[0], gone])
            #expect(members.map(\.subscriber.id) == [ids[0], ids[2]], "only subscribers of the event, ascending")
            #expect(members.map(\.silent) == [true, false])
            #expect(try await store.members(of: jobs[1], among: [ids[3], gone]).map(\.subscriber.id) == [ids[3]])
            #expect(try await store.members(of: jobs[0], among: []).isEmpty)

            let found = try await store.subscribers([ids[1], gone, ids[3]])
            #expect(Set(found.map(\.id)) == [ids[1], ids[3]])
            #expect(try await store.subscribers([]).isEmpty)
        }
    }
}
