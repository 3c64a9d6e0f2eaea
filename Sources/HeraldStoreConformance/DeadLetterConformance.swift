import HeraldCore
import HeraldStore
import Testing

/// `DeadLetterStore`: failures kept with their record, listing, replay, deletion and pruning.
public enum DeadLetterConformance {
    /// A failure record of `subscriber` carrying a dead letter of `notification`.
    private static func failure(
        _ subscriber: Subscriber, _ effect: DeliveryRecord.Effect, notification: HeraldCore.PublishedEvent = sampleNotification(), attempts: Int = 5
    ) -> DeliveryRecord {
        DeliveryRecord(
            subscriberID: subscriber.id, proto: subscriber.proto, token: subscriber.token, statisticsEvent: event("sport"), effect: effect,
            deadLetter: DeadLetterContent(
                publication: Publication(content: .event(notification), statisticsEvent: event("sport"), publishedAt: TestTime.t0 - 10),
                silent: false, badge: 3, attempts: attempts))
    }

    private static func subscribers(_ store: any HeraldStore, count: Int, proto: String = "apns") async throws -> [Subscriber] {
        var result: [Subscriber] = []
        for n in 0..<count {
            result.append(try await store.register(apns(n, proto: proto), now: TestTime.t0).subscriber)
        }
        return result
    }

    /// failures with content become dead letters in the same call; successes and dead tokens do not
    public static func recorded(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 4)
            _ = try await store.record([
                failure(s[0], .failed(reason: "PayloadTooLarge", status: 413)),
                failure(s[1], .subscriberFailure(reason: "Forbidden", status: 403)),
                failure(s[2], .delivered),
                failure(s[3], .deadToken(reason: "BadDeviceToken", status: 400, invalidSince: nil)),
                DeliveryRecord(subscriberID: s[2].id, proto: "apns", token: s[2].token, statisticsEvent: nil, effect: .failed(reason: "x", status: nil)),
            ], maxFailures: 5, now: TestTime.t0)
            let letters = try await store.deadLetters(matching: DeadLetterFilter(), after: nil, limit: 100)
            #expect(letters.map(\.subscriberID) == [s[0].id, s[1].id])
            #expect(letters.map(\.reason) == ["PayloadTooLarge", "Forbidden"])
            #expect(letters.map(\.status) == [413, 403])
            let first = try #require(letters.first)
            #expect(first.time == TestTime.t0)
            #expect(first.token == s[0].token)
            #expect(first.statisticsEvent == event("sport"))
            #expect(first.content == DeadLetterContent(
                publication: Publication(content: .event(sampleNotification()), statisticsEvent: event("sport"), publishedAt: TestTime.t0 - 10),
                silent: false, badge: 3, attempts: 5))
            #expect(try await store.counts().deadLetters == 2)
        }
    }

    /// listing filters by provider, event and time and pages by id
    public static func filters(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let a = try await subscribers(store, count: 3, proto: "apns")
            let g = try await subscribers(store, count: 1, proto: "gcm")
            _ = try await store.record([failure(a[0], .failed(reason: "r", status: nil), notification: sampleNotification("sport"))], maxFailures: 5, now: 100)
            _ = try await store.record([failure(a[1], .failed(reason: "r", status: nil), notification: sampleNotification("news"))], maxFailures: 5, now: 200)
            _ = try await store.record([failure(g[0], .failed(reason: "r", status: nil), notification: sampleNotification("sport"))], maxFailures: 5, now: 300)
            _ = try await store.record([failure(a[2], .failed(reason: "r", status: nil), notification: sampleNotification("sport"))], maxFailures: 5, now: 400)

            func ids(_ filter: DeadLetterFilter, after: Int64? = nil, limit: Int = 100) async throws -> [SubscriberID?] {
                try await store.deadLetters(matching: filter, after: after, limit: limit).map(\.subscriberID)
            }
            #expect(try await ids(DeadLetterFilter(proto: "gcm")) == [g[0].id])
            #expect(try await ids(DeadLetterFilter(event: "sport")) == [a[0].id, g[0].id, a[2].id])
            #expect(try await ids(DeadLetterFilter(proto: "apns", event: "sport")) == [a[0].id, a[2].id])
            #expect(try await ids(DeadLetterFilter(since: 200, until: 400)) == [a[1].id, g[0].id])
            let page = try await store.deadLetters(matching: DeadLetterFilter(), after: nil, limit: 2)
            #expect(page.map(\.subscriberID) == [a[0].id, a[1].id])
            #expect(try await ids(DeadLetterFilter(), after: page.last?.id) == [g[0].id, a[2].id])
            #expect(try await ids(DeadLetterFilter(ids: [page[1].id])) == [a[1].id])
        }
    }

    /// replay turns dead letters into due retries with a fresh budget; orphans stay
    public static func replay(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 3)
            _ = try await store.record(s.map { failure($0, .failed(reason: "InternalServerError", status: 500)) }, maxFailures: 5, now: TestTime.t0)
            #expect(try await store.deleteSubscriber(s[2].id))

            let result = try await store.replayDeadLetters(matching: DeadLetterFilter(), limit: 100, nowMillis: TestTime.t0 * 1000)
            #expect(result == DeadLetterReplay(replayed: 2, orphaned: 1))
            let remaining = try await store.deadLetters(matching: DeadLetterFilter(), after: nil, limit: 100)
            #expect(remaining.map(\.subscriberID) == [s[2].id])

            let retries = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "w", expiresAt: TestTime.t0 * 1000 + 30_000), nowMillis: TestTime.t0 * 1000)
            #expect(Set(retries.map(\.subscriberID)) == [s[0].id, s[1].id])
            for entry in retries {
                #expect(entry.attempts == 0)
                #expect(entry.notification == .event(sampleNotification()))
                #expect(entry.badge == 3)
                #expect(entry.publishedAt == TestTime.t0 - 10)
                #expect(entry.statisticsEvent == event("sport"))
                #expect(entry.lastReason == "InternalServerError")
            }
            // A second replay of the same selection finds nothing new to send.
            #expect(try await store.replayDeadLetters(matching: DeadLetterFilter(), limit: 100, nowMillis: TestTime.t0 * 1000).replayed == 0)
        }
    }

    /// replay and deletion honour the filter and the limit
    public static func limits(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 5)
            _ = try await store.record(s.map { failure($0, .failed(reason: "r", status: nil)) }, maxFailures: 5, now: TestTime.t0)
            #expect(try await store.replayDeadLetters(matching: DeadLetterFilter(proto: "other"), limit: 10, nowMillis: 0).replayed == 0)
            #expect(try await store.replayDeadLetters(matching: DeadLetterFilter(), limit: 2, nowMillis: 0).replayed == 2)
            #expect(try await store.deleteDeadLetters(matching: DeadLetterFilter(), limit: 2) == 2)
            let left = try await store.deadLetters(matching: DeadLetterFilter(), after: nil, limit: 10)
            #expect(left.map(\.subscriberID) == [s[4].id])
            #expect(try await store.counts().retries == 2)
        }
    }

    /// pruning removes dead letters and feedback older than the cut-off only
    public static func pruning(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 2)
            _ = try await store.record([failure(s[0], .failed(reason: "old", status: nil))], maxFailures: 5, now: 1_000)
            _ = try await store.record([failure(s[1], .failed(reason: "new", status: nil))], maxFailures: 5, now: 2_000)
            #expect(try await store.pruneDeadLetters(before: 2_000) == 1)
            #expect(try await store.deadLetters(matching: DeadLetterFilter(), after: nil, limit: 10).map(\.reason) == ["new"])
            #expect(try await store.pruneFeedback(before: 2_000) == 1)
            #expect(try await store.feedback(after: nil, since: nil, limit: 10).map(\.reason) == ["new"])
        }
    }

    /// releasing leases lets another worker claim jobs and retries at once
    public static func releaseLeases(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 1)
            _ = try await store.subscribe(s[0].id, to: event("sport"), ignoreMessage: false, now: TestTime.t0)
            _ = try await store.enqueue(.subscribers(event("sport")), notification: sampleNotification(), now: TestTime.t0)
            try await store.scheduleRetries([retry(s[0].id, dueAt: 0)])
            let now = TestTime.t0 * 1000
            let held = Lease(owner: "a", expiresAt: now + 60_000)
            #expect(try await store.claimJobs(limit: 1, lease: held, nowMillis: now).count == 1)
            #expect(try await store.claimDueRetries(limit: 1, lease: held, nowMillis: now).count == 1)
            let other = Lease(owner: "b", expiresAt: now + 60_000)
            #expect(try await store.claimJobs(limit: 1, lease: other, nowMillis: now).isEmpty)

            try await store.releaseLeases(owner: "a")
            #expect(try await store.claimJobs(limit: 1, lease: other, nowMillis: now).count == 1)
            #expect(try await store.claimDueRetries(limit: 1, lease: other, nowMillis: now).count == 1)
        }
    }
}
