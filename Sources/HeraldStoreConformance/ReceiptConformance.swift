import HeraldCore
import HeraldStore
import Testing

/// `PublishReceipts`: receipts, their progress, scheduled publishes and idempotency keys.
public enum ReceiptConformance {
    /// A publish to `event` with a fresh publish id.
    static func request(
        _ audience: PublishAudience, event: String = "e", dueAt: Int64? = nil, idempotency: IdempotencyClaim? = nil
    ) -> PublishRequest {
        var notification = sampleNotification(event)
        notification.publishID = DeliveryContent.newPublishID()
        return PublishRequest(audience: audience, content: .event(notification), origin: .pushd, event: event, dueAt: dueAt, idempotency: idempotency)
    }

    /// a publish sent now is announced to listeners, with or without audience; a scheduled one is not, nor a repeat
    public static func publishesSentNowAreAnnounced(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            var wakeUps = store.wakeUps().makeAsyncIterator()
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            let news = try #require(EventName("news"))
            _ = try await store.subscribe(id, to: news, ignoreMessage: false, now: TestTime.t0)

            let unheard = request(.subscribers(try #require(EventName("unheard"))), event: "unheard")
            #expect(try await store.enqueue(unheard, now: TestTime.t0) == .noAudience)
            #expect(await wakeUps.next() == .event(try #require(announced(unheard))))

            let later = request(.subscribers(news), event: "news", dueAt: TestTime.t0 + 60)
            #expect(try await store.enqueue(later, now: TestTime.t0) == .scheduled)
            let claim = IdempotencyClaim(key: "k", fingerprint: "f", since: TestTime.t0 - 60)
            let keyed = request(.subscribers(news), event: "news", idempotency: claim)
            guard case .queued = try await store.enqueue(keyed, now: TestTime.t0) else {
                Issue.record("not queued")
                return
            }
            #expect(await wakeUps.next() == .jobs)
            #expect(await wakeUps.next() == .event(try #require(announced(keyed))), "the scheduled publish was not announced before it")
            var again = keyed
            again.content = request(.subscribers(news), event: "news").content
            #expect(try await store.enqueue(again, now: TestTime.t0 + 1) == .repeated(publishID: keyed.id))

            let now = request(.subscribers(news), event: "news")
            guard case .queued = try await store.enqueue(now, now: TestTime.t0 + 2) else {
                Issue.record("not queued")
                return
            }
            #expect(await wakeUps.next() == .jobs)
            #expect(await wakeUps.next() == .event(try #require(announced(now))), "the repeat was not announced before it")
        }
    }

    /// The event a publish of ``request(_:event:dueAt:idempotency:)`` carries.
    static func announced(_ publish: PublishRequest) -> PublishedEvent? {
        guard case .event(let event) = publish.content else { return nil }
        return event
    }

    /// a publish without audience is done at once; one with an audience fans out, counting its subscribers
    public static func receiptOnEnqueue(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let nobody = request(.subscribers(event("e")))
            #expect(try await store.enqueue(nobody, now: TestTime.t0) == .noAudience)
            let empty = try #require(try await store.receipt(of: nobody.id))
            #expect(empty.state == .done)
            #expect(empty.audience == 0 && empty.pending == 0)
            #expect(empty.created == TestTime.t0 && empty.finished == TestTime.t0 && empty.scheduledAt == nil)

            let ids = try await registerMany(store, count: 3)
            for id in ids { _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0) }
            let publish = request(.subscribers(event("e")))
            guard case .queued = try await store.enqueue(publish, now: TestTime.t0 + 1) else {
                Issue.record("not queued")
                return
            }
            let receipt = try #require(try await store.receipt(of: publish.id))
            #expect(receipt.state == .fanningOut)
            #expect(receipt.event == "e")
            #expect(receipt.audience == 3 && receipt.pending == 3 && receipt.delivered == 0)
            #expect(receipt.started == nil && receipt.finished == nil)

            let unknown = request(.unicast(SubscriberID(rawValue: "nobody")))
            #expect(try await store.enqueue(unknown, now: TestTime.t0) == .unknownSubscriber)
            #expect(try await store.receipt(of: unknown.id) == nil)
            #expect(try await store.receipt(of: DeliveryContent.newPublishID()) == nil)
        }
    }

    /// many publishes at once, to events with and without subscribers, each answered as if alone; one whose id is taken fails alone
    ///
    /// Concurrent publishes may share one commit (a group commit): each caller must still get its
    /// own job or none, its own receipt, and the statistics must count every publish once; a
    /// publish the database refuses (its receipt's id is taken) must fail without its batch-mates.
    public static func concurrentPublishesAnswerEachCaller(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            for id in ids {
                _ = try await store.subscribe(id, to: event("heard"), ignoreMessage: false, now: TestTime.t0)
                _ = try await store.subscribe(id, to: event("loud"), ignoreMessage: false, now: TestTime.t0)
            }
            let first = request(.subscribers(event("heard")), event: "heard")
            guard case .queued = try await store.enqueue(first, now: TestTime.t0) else {
                Issue.record("not queued")
                return
            }
            // The same receipt id as `first`: refused by the store, whatever else commits with it.
            var takenNotification = sampleNotification("loud")
            takenNotification.publishID = first.id
            let taken = PublishRequest(audience: .subscribers(event("loud")), content: .event(takenNotification), origin: .pushd, event: "loud")
            let others = (0..<90).map { n in
                let name = ["heard", "loud", "unheard"][n % 3]
                return request(.subscribers(event(name)), event: name)
            }
            let publishes = Array(others[..<45]) + [taken] + Array(others[45...])
            let outcomes = await withTaskGroup(of: (Int, Result<EnqueueResult, any Error>).self) { group in
                for (index, publish) in publishes.enumerated() {
                    group.addTask {
                        do { return (index, .success(try await store.enqueue(publish, now: TestTime.t0 + 5))) }
                        catch { return (index, .failure(error)) }
                    }
                }
                var outcomes: [Int: Result<EnqueueResult, any Error>] = [:]
                for await (index, outcome) in group { outcomes[index] = outcome }
                return outcomes
            }
            var jobs = Set<Int64>()
            for (index, publish) in publishes.enumerated() {
                let outcome = try #require(outcomes[index])
                if index == 45 {
                    #expect(throws: (any Error).self, "a publish whose receipt id is taken fails") { try outcome.get() }
                    continue
                }
                let receipt = try #require(try await store.receipt(of: publish.id))
                #expect(receipt.event == publish.event)
                switch try outcome.get() {
                case .queued(let jobID):
                    #expect(publish.event != "unheard")
                    #expect(jobs.insert(jobID).inserted, "each publish has a job of its own")
                    #expect(receipt.state == .fanningOut && receipt.audience == 2)
                case .noAudience:
                    #expect(publish.event == "unheard")
                    #expect(receipt.state == .done && receipt.audience == 0)
                default:
                    Issue.record("unexpected \(try outcome.get())")
                }
            }
            #expect(jobs.count == 60)
            #expect(try await store.receipt(of: first.id)?.event == "heard", "the taken id still names the first publish")
            #expect(try await store.statistics(of: event("heard"))?.total == 31)
            #expect(try await store.statistics(of: event("loud"))?.total == 30)
            #expect(try await store.counts().jobs == 61)
        }
    }

    /// settlements count delivered, failed, dead letters and reasons; retries count from the queue; the last one makes it done
    public static func progressToDone(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 4).sorted()
            for id in ids { _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0) }
            let publish = request(.subscribers(event("e")))
            _ = try await store.enqueue(publish, now: TestTime.t0)
            let lease = Lease(owner: "w", expiresAt: 60_000)
            let job = try #require(try await store.claimJobs(limit: 1, lease: lease, nowMillis: TestTime.t0 * 1000).first)
            #expect(job.receiptID == publish.id)
            #expect(try await store.receipt(of: publish.id)?.started == TestTime.t0)

            // Two delivered, one failed for good (kept as a dead letter), one waiting for a retry.
            var first = Settlement()
            var progress = ReceiptProgress()
            progress.count(.delivered, firstAttempt: true, deadLettered: false)
            progress.count(.delivered, firstAttempt: true, deadLettered: false)
            progress.count(.failed(reason: "BadPayload", status: 400), firstAttempt: true, deadLettered: true)
            progress.reached += 1
            first.receipts[publish.id] = progress
            var retry = retry(ids[3], dueAt: 1_000, statistics: event("e"))
            retry.receiptID = publish.id
            first.newRetries = [retry]
            first.jobs = [JobCheckpoint(jobID: job.id, lease: lease, cursor: ids[3], pending: .none, complete: true)]
            _ = try await store.settle(first, maxFailures: 5, now: TestTime.t0 + 1)

            let fanned = try #require(try await store.receipt(of: publish.id))
            #expect(fanned.state == .fanningOut)
            #expect(fanned.delivered == 2 && fanned.failed == 1 && fanned.deadLettered == 1 && fanned.retrying == 1)
            #expect(fanned.failures == ["BadPayload": 1])
            #expect(fanned.pending == 0)

            let claimed = try #require(try await store.claimDueRetries(limit: 1, lease: lease, nowMillis: 2_000).first)
            #expect(claimed.receiptID == publish.id)
            var last = Settlement()
            var retried = ReceiptProgress()
            retried.count(.failed(reason: "BadPayload", status: 400), firstAttempt: false, deadLettered: false)
            last.receipts[publish.id] = retried
            last.finishedRetries = [claimed.id]
            _ = try await store.settle(last, maxFailures: 5, now: TestTime.t0 + 2)

            let done = try #require(try await store.receipt(of: publish.id))
            #expect(done.state == .done)
            #expect(done.finished != nil)
            #expect(done.audience == 4 && done.delivered == 2 && done.failed == 2 && done.retrying == 0 && done.pending == 0)
            #expect(done.failures == ["BadPayload": 2])
            #expect(done.deadLettered == 1)
        }
    }

    /// a scheduled publish waits, is released once when due (as a job), and cannot be cancelled after
    public static func scheduled(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0)
            let publish = request(.subscribers(event("e")), dueAt: TestTime.t0 + 60)
            #expect(try await store.enqueue(publish, now: TestTime.t0) == .scheduled)
            let waiting = try #require(try await store.receipt(of: publish.id))
            #expect(waiting.state == .scheduled && waiting.scheduledAt == TestTime.t0 + 60 && waiting.pending == 0)
            #expect(try await store.backlog().jobs == 0)
            #expect(try await store.releaseScheduledPublishes(now: TestTime.t0 + 59, limit: 10).isEmpty)

            let released = try await store.releaseScheduledPublishes(now: TestTime.t0 + 60, limit: 10)
            #expect(released == [publish.content])
            #expect(try await store.releaseScheduledPublishes(now: TestTime.t0 + 61, limit: 10).isEmpty)
            #expect(try await store.backlog().jobs == 1)
            let job = try #require(try await store.claimJobs(limit: 1, lease: Lease(owner: "w", expiresAt: 1), nowMillis: 0).first)
            #expect(job.content == publish.content && job.publishedAt == TestTime.t0 + 60)
            let fanning = try #require(try await store.receipt(of: publish.id))
            #expect(fanning.state == .fanningOut && fanning.audience == 1 && fanning.scheduledAt == TestTime.t0 + 60)
            #expect(try await store.cancelPublish(publish.id, now: TestTime.t0 + 61) == .notScheduled(.fanningOut))
            #expect(try await store.statistics(of: event("e"))?.total == 1)
        }
    }

    /// cancelling a scheduled publish stops it; cancelling twice or an unknown id says so
    public static func cancel(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.register(apns(1), now: TestTime.t0)
            let publish = request(.broadcast, event: "broadcast", dueAt: TestTime.t0 + 10)
            #expect(try await store.enqueue(publish, now: TestTime.t0) == .scheduled)
            #expect(try await store.cancelPublish(publish.id, now: TestTime.t0 + 1) == .cancelled)
            let cancelled = try #require(try await store.receipt(of: publish.id))
            #expect(cancelled.state == .cancelled && cancelled.finished == TestTime.t0 + 1)
            #expect(try await store.cancelPublish(publish.id, now: TestTime.t0 + 2) == .notScheduled(.cancelled))
            #expect(try await store.releaseScheduledPublishes(now: TestTime.t0 + 20, limit: 10).isEmpty)
            #expect(try await store.backlog().jobs == 0)
            #expect(try await store.cancelPublish(DeliveryContent.newPublishID(), now: TestTime.t0) == .unknown)
        }
    }

    /// an idempotency key repeats the first publish within its window, refuses another request, and expires
    public static func idempotency(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.register(apns(1), now: TestTime.t0)
            let claim = IdempotencyClaim(key: "k-1", fingerprint: "f", since: TestTime.t0 - 100)
            let first = request(.broadcast, event: "broadcast", idempotency: claim)
            guard case .queued = try await store.enqueue(first, now: TestTime.t0) else {
                Issue.record("not queued")
                return
            }
            #expect(try await store.enqueue(request(.broadcast, event: "broadcast", idempotency: claim), now: TestTime.t0 + 1)
                == .repeated(publishID: first.id))
            var other = claim
            other.fingerprint = "g"
            #expect(try await store.enqueue(request(.broadcast, event: "broadcast", idempotency: other), now: TestTime.t0 + 1) == .keyConflict)
            #expect(try await store.backlog().jobs == 1)
            #expect(try await store.statistics(of: .broadcast)?.total == 1)

            // Past the window the key is free again.
            var later = claim
            later.since = TestTime.t0 + 1
            let again = request(.broadcast, event: "broadcast", idempotency: later)
            guard case .queued = try await store.enqueue(again, now: TestTime.t0 + 2) else {
                Issue.record("an expired key still answered")
                return
            }
            #expect(try await store.backlog().jobs == 2)
        }
    }

    /// publishes sent at once with one idempotency key publish once; the others repeat it
    public static func concurrentIdempotency(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.register(apns(1), now: TestTime.t0)
            let claim = IdempotencyClaim(key: "same", fingerprint: "f", since: TestTime.t0 - 100)
            let requests = (0..<8).map { _ in request(.broadcast, event: "broadcast", idempotency: claim) }
            let results = try await withThrowingTaskGroup(of: EnqueueResult.self) { group in
                for publish in requests { group.addTask { try await store.enqueue(publish, now: TestTime.t0) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let queued = results.filter { if case .queued = $0 { true } else { false } }
            #expect(queued.count == 1, "\(results)")
            let repeated = results.compactMap { result -> String? in if case .repeated(let id) = result { id } else { nil } }
            #expect(repeated.count == 7)
            #expect(Set(repeated).count == 1, "every repeat names the one publish")
            #expect(requests.contains { $0.id == repeated.first })
            #expect(try await store.backlog().jobs == 1)
        }
    }

    /// pruning deletes old finished receipts, forgets old keys, and finishes publishes with nothing left
    public static func prune(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let old = request(.subscribers(event("e")), idempotency: IdempotencyClaim(key: "old", fingerprint: "f", since: 0))
            _ = try await store.enqueue(old, now: TestTime.t0)
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            let stuck = request(.unicast(id), event: "unicast:\(id)")
            guard case .queued = try await store.enqueue(stuck, now: TestTime.t0 + 50) else {
                Issue.record("not queued")
                return
            }
            try await store.pruneReceipts(finishedBefore: TestTime.t0, keysBefore: TestTime.t0 + 1, now: TestTime.t0 + 60)
            #expect(try await store.receipt(of: old.id) != nil)
            #expect(try await store.receipt(of: stuck.id)?.state == .fanningOut)
            // The key is forgotten: the same key publishes again.
            let reuse = request(.subscribers(event("e")), idempotency: IdempotencyClaim(key: "old", fingerprint: "other", since: TestTime.t0 + 1))
            #expect(try await store.enqueue(reuse, now: TestTime.t0 + 60) == .noAudience)

            // Its retry goes with its deleted subscriber: nothing settles the publish again, the sweep finishes it.
            let lease = Lease(owner: "w", expiresAt: .max)
            let job = try #require(try await store.claimJobs(limit: 1, lease: lease, nowMillis: 0).first)
            var settlement = Settlement()
            var waiting = retry(id, dueAt: 1_000)
            waiting.receiptID = stuck.id
            settlement.newRetries = [waiting]
            settlement.receipts[stuck.id, default: ReceiptProgress()].reached = 1
            settlement.jobs = [JobCheckpoint(jobID: job.id, lease: lease, cursor: id, pending: .none, complete: true)]
            _ = try await store.settle(settlement, maxFailures: 5, now: TestTime.t0 + 60)
            #expect(try await store.receipt(of: stuck.id)?.retrying == 1)
            #expect(try await store.deleteSubscriber(id))
            #expect(try await store.receipt(of: stuck.id)?.state == .fanningOut)
            try await store.pruneReceipts(finishedBefore: TestTime.t0 + 1, keysBefore: 0, now: TestTime.t0 + 70)
            #expect(try await store.receipt(of: old.id) == nil)
            let finished = try #require(try await store.receipt(of: stuck.id))
            #expect(finished.state == .done && finished.audience == 1 && finished.retrying == 0 && finished.finished == TestTime.t0 + 70)
        }
    }

    /// imported receipts read back as they were, a scheduled one is released when due, and a second import writes nothing
    public static func importPublishes(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0)
            let finished = PublishStatus(
                id: DeliveryContent.newPublishID(), event: "e", state: .done, audience: 3, reached: 3, delivered: 1, failed: 2,
                deadLettered: 1, failures: ["BadDeviceToken": 1, "HTTP 500": 1], created: TestTime.t0, started: TestTime.t0,
                finished: TestTime.t0 + 1)
            let scheduledRequest = request(.subscribers(event("e")))
            let scheduled = PublishStatus(
                id: scheduledRequest.id, event: "e", state: .scheduled, audience: 0, created: TestTime.t0, scheduledAt: TestTime.t0 + 30)
            let records = [
                PublishRecord(status: finished, idempotency: ("key-1", "f")),
                PublishRecord(
                    status: scheduled,
                    scheduled: ScheduledContent(audience: scheduledRequest.audience, origin: .pushd, content: scheduledRequest.content)),
            ]
            #expect(try await store.importPublishes(records) == 2)
            #expect(try await store.importPublishes(records) == 0)
            #expect(try await store.receipt(of: finished.id) == finished)
            #expect(try await store.receipt(of: scheduled.id) == scheduled)
            // The key came with it.
            let repeated = request(.subscribers(event("e")), idempotency: IdempotencyClaim(key: "key-1", fingerprint: "f", since: TestTime.t0))
            #expect(try await store.enqueue(repeated, now: TestTime.t0 + 2) == .repeated(publishID: finished.id))
            #expect(try await store.releaseScheduledPublishes(now: TestTime.t0 + 30, limit: 10) == [scheduledRequest.content])
            #expect(try await store.receipt(of: scheduled.id)?.state == .fanningOut)
        }
    }
}
