import HeraldCore
import HeraldStore
import Testing

/// `WorkImport` (`herald migrate`): pending work and logs written with their ids, idempotently,
/// and the figures `SubscriberImport` carries over from another Herald store (failure counters,
/// delivery counts).
public enum WorkImportConformance {
    /// An imported job of the subscribers of `sport`, shared out and half fanned out.
    private static func job(_ id: Int64, after cursor: SubscriberID?) -> PublishJob {
        PublishJob(
            id: id, audience: .subscribers(event("sport")), origin: DeliveryOrigin("gorush"), content: .event(sampleNotification()),
            publishedAt: TestTime.t0 - 60, cursor: cursor, pending: cursor.map { .listed([$0]) } ?? .none,
            end: SubscriberID(rawValue: "zzzzzzzzzzz"))
    }

    /// importPublishJobs, importQueuedDeliveries, importFeedback and importDeadLetters keep ids and every field, skip what is stored, and later rows get larger ids
    public static func importKeepsIdsAndIsIdempotent(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let subscriber = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(subscriber, to: event("sport"), ignoreMessage: false, now: TestTime.t0)
            let jobs = [
                job(40, after: subscriber),
                PublishJob(
                    id: 41, audience: .groups([event("sport"), event("news")], proto: "apns"), content: .prepared(RawDeliveryConformance.payload),
                    publishedAt: TestTime.t0 - 30, pending: .range(after: nil, except: [subscriber])),
                PublishJob(id: 42, audience: .unicast(subscriber), content: .event(sampleNotification("unicast")), publishedAt: TestTime.t0),
            ]
            #expect(try await store.importPublishJobs(jobs) == 3)
            #expect(try await store.importPublishJobs(jobs) == 0, "a second run leaves stored jobs alone")

            var subscriberRetry = retry(subscriber, dueAt: 1_000, statistics: event("sport"), attempts: 2)
            subscriberRetry.id = 70
            var raw = RawDeliveryConformance.raw("aa01", dueAt: 2_000)
            raw.id = 71
            raw.maxAttempts = 1
            var orphan = retry(SubscriberID(rawValue: "nobody12345"), dueAt: 1_000)
            orphan.id = 72
            #expect(try await store.importQueuedDeliveries([subscriberRetry, raw, orphan]) == 2, "a retry of a missing subscriber is dropped")
            #expect(try await store.importQueuedDeliveries([subscriberRetry, raw]) == 0)

            let feedback = [
                ImportedFeedback(entry: FeedbackEntry(
                    id: 90, time: TestTime.t0 - 5, subscriberID: nil, origin: DeliveryOrigin("gorush"), proto: "apns", token: "aa09",
                    status: 410, reason: "Unregistered", action: .invalid, reference: "ref-1", invalidSince: 1_234), taken: true),
                ImportedFeedback(entry: FeedbackEntry(
                    id: 91, time: TestTime.t0 - 4, subscriberID: nil, origin: DeliveryOrigin("gorush"), proto: "apns", token: "aa10",
                    status: 410, reason: "Unregistered", action: .invalid)),
                ImportedFeedback(entry: FeedbackEntry(
                    id: 92, time: TestTime.t0 - 3, subscriberID: subscriber, proto: "apns", token: apns(1).token, status: 400,
                    reason: "BadDeviceToken", action: .replaced, replacement: "ff")),
            ]
            #expect(try await store.importFeedback(feedback) == 3)
            #expect(try await store.importFeedback(feedback) == 0)

            let letters = [
                DeadLetter(
                    id: 50, time: TestTime.t0 - 2, subscriberID: subscriber, proto: "apns", token: apns(1).token, status: 400, reason: "BadTopic",
                    content: DeadLetterContent(
                        publication: Publication(
                            content: .event(sampleNotification()), statisticsEvent: event("sport"), publishedAt: TestTime.t0 - 60),
                        silent: true, badge: 3, attempts: 1)),
                DeadLetter(
                    id: 51, time: TestTime.t0 - 1, subscriberID: nil, proto: "apns", token: "aa11", status: 413, reason: "PayloadTooLarge",
                    content: DeadLetterContent(
                        publication: Publication(
                            content: .prepared(RawDeliveryConformance.payload), origin: DeliveryOrigin("apns-ms"), statisticsEvent: nil,
                            publishedAt: TestTime.t0),
                        silent: false, badge: nil, attempts: 1, maxAttempts: 1)),
            ]
            #expect(try await store.importDeadLetters(letters) == 2)
            #expect(try await store.importDeadLetters(letters) == 0)

            let counts = try await store.counts()
            #expect(counts == StoreCounts(subscribers: 1, subscriptions: 1, events: 1, jobs: 3, retries: 2, deadLetters: 2))
            #expect(try await store.feedbackCount() == 3)

            // Every row reads back as it was given, free for any worker.
            #expect(try await store.claimJobs(limit: 10, lease: Lease(owner: "w", expiresAt: 60_000), nowMillis: 1_000) == jobs)
            #expect(
                try await store.claimDueRetries(limit: 10, lease: Lease(owner: "w", expiresAt: 60_000), nowMillis: 5_000)
                    == [subscriberRetry, raw])
            #expect(try await store.feedback(after: nil, since: nil, limit: 10) == feedback.map(\.entry))
            #expect(try await store.deadLetters(matching: DeadLetterFilter(), after: nil, limit: 10) == letters)
            // A taken entry is not handed to its front-end again.
            #expect(try await store.takeFeedback(origin: DeliveryOrigin("gorush"), actions: [.invalid], limit: 10).map(\.id) == [91])

            // What the store makes next never reuses an imported id.
            guard case .queued(let next) = try await store.enqueue(.subscribers(event("sport")), notification: sampleNotification(), now: TestTime.t0)
            else {
                Issue.record("the publish was not queued")
                return
            }
            #expect(next > 42)
            try await store.scheduleRetries([RawDeliveryConformance.raw("aa02", dueAt: 3_000)])
            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "w", expiresAt: 60_000), nowMillis: 5_000)
            #expect(claimed.map(\.id).allSatisfy { $0 > 71 } && claimed.count == 1)
            try await store.appendFeedback([FeedbackEntry(
                time: TestTime.t0, subscriberID: subscriber, proto: "apns", token: apns(1).token, status: nil, reason: "no provider",
                action: .skipped)])
            #expect(try await store.feedback(after: 92, since: nil, limit: 10).count == 1)
        }
    }

    /// importSubscribers keeps a failure counter, and importEventStatistics writes delivered and failed where given and keeps them otherwise
    public static func importKeepsCounters(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let registration = apns(1)
            let id = SubscriberID(rawValue: "J8lHY4X1XkU")
            _ = try await store.importSubscribers([
                ImportedSubscriber(
                    id: id, proto: registration.proto, token: registration.token, created: TestTime.t0 - 100, updated: TestTime.t0 - 50,
                    subscriptions: [ImportedSubscription(event: event("sport"), ignoreMessage: false)], failures: 3),
            ])
            #expect(try await store.subscriber(id)?.failures == 3)

            let written = try await store.importEventStatistics([
                ImportedEventStatistics(event: event("sport"), created: TestTime.t0 - 90, total: 5, last: TestTime.t0 - 10, delivered: 4, failed: 1),
                ImportedEventStatistics(event: .broadcast, created: TestTime.t0 - 80, total: 2, last: TestTime.t0 - 20, delivered: 7, failed: 0),
            ])
            #expect(written.map(\.rawValue) == ["broadcast", "sport"])
            #expect(
                try await store.statistics(of: event("sport"))
                    == EventStatistics(created: TestTime.t0 - 90, last: TestTime.t0 - 10, total: 5, subscribers: 1, delivered: 4, failed: 1))
            #expect(try await store.statistics(of: .broadcast)?.delivered == 7)

            // A count not given keeps the stored one.
            _ = try await store.importEventStatistics([
                ImportedEventStatistics(event: event("sport"), created: TestTime.t0 - 90, total: 5, last: TestTime.t0 - 10, failed: 2),
            ])
            #expect(try await store.statistics(of: event("sport"))?.delivered == 4)
            #expect(try await store.statistics(of: event("sport"))?.failed == 2)

            // Without counts (an import from another server) the stored ones stay.
            _ = try await store.importEventStatistics([ImportedEventStatistics(event: event("sport"), created: TestTime.t0 - 90, total: 6)])
            let kept = try #require(try await store.statistics(of: event("sport")))
            #expect(kept.total == 6)
            #expect(kept.delivered == 4)
            #expect(kept.failed == 2)
        }
    }
}
