import HeraldCore
import HeraldStore
import Testing

/// Raw-token deliveries (the compat front-ends' sends) and origins: queued beside retries with no
/// subscriber, settled into feedback and dead letters that name their front-end.
public enum RawDeliveryConformance {
    static let payload = PreparedPayload(
        body: #"{"aps":{"alert":"hi"}}"#, headers: ["apns-push-type": "alert"], expiration: TestTime.t0 + 3_600, label: "promo")

    static func raw(_ token: String, origin: String = "gorush", dueAt: Int64 = 1_000, attempts: Int = 0) -> QueuedDelivery {
        QueuedDelivery(
            recipient: .token(proto: "apns", token: token), origin: DeliveryOrigin(origin), statisticsEvent: nil,
            notification: .prepared(payload), silent: false, badge: nil, attempts: attempts, dueAt: dueAt, publishedAt: TestTime.t0,
            lastReason: nil)
    }

    /// raw-token deliveries round-trip through the queue with their payload and origin, and count in the backlog
    public static func rawDeliveriesRoundTrip(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let subscriber = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            try await store.scheduleRetries([raw("aa01"), raw("aa02", origin: "apns-ms", dueAt: 2_000), retry(subscriber, dueAt: 1_500)])
            #expect(try await store.backlog() == Backlog(jobs: 0, retries: 3))
            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "a", expiresAt: 60_000), nowMillis: 5_000)
            #expect(claimed.count == 3)
            let first = try #require(claimed.first)
            var expected = raw("aa01")
            expected.id = first.id
            #expect(first == expected)
            #expect(claimed[1].recipient == .subscriber(subscriber))
            #expect(claimed[1].origin == .pushd)
            #expect(claimed[2].recipient == .token(proto: "apns", token: "aa02"))
            #expect(claimed[2].origin == DeliveryOrigin("apns-ms"))
            // No subscriber to outlive: deleting every subscriber leaves raw deliveries queued.
            #expect(try await store.deleteSubscriber(subscriber))
            #expect(try await store.backlog().retries == 2)
        }
    }

    /// deliveries queued under a living key are queued once, even by concurrent callers; an expired key queues again and is pruned
    public static func deliveredOncePerKey(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let now = TestTime.t0
            #expect(try await store.scheduleRetries([raw("aa01")], once: DeliveryKey("k", expiresAt: now + 100), now: now))
            #expect(try await !store.scheduleRetries([raw("aa02")], once: DeliveryKey("k", expiresAt: now + 150), now: now + 99), "a repeat")
            #expect(try await store.backlog().retries == 1, "the repeat stored nothing")
            #expect(try await store.scheduleRetries([raw("aa03")], once: DeliveryKey("other", expiresAt: now + 100), now: now))
            #expect(try await store.scheduleRetries([raw("aa04")], once: DeliveryKey("k", expiresAt: now + 200), now: now + 100), "expired")
            #expect(try await store.backlog().retries == 3)
            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "a", expiresAt: 60_000), nowMillis: 5_000)
            #expect(Set(claimed.map(\.recipient)) == Set(["aa01", "aa03", "aa04"].map { Recipient.token(proto: "apns", token: $0) }))

            let racers = 8
            let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<racers {
                    group.addTask { try await store.scheduleRetries([raw("bb0\(index)")], once: DeliveryKey("race", expiresAt: now + 100), now: now) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 1, "concurrent callers with one key")
            #expect(try await store.backlog().retries == 4)

            #expect(try await store.pruneDeliveryKeys(now: now + 150) == 2, "other and race")
            #expect(try await store.scheduleRetries([raw("aa05")], once: DeliveryKey("other", expiresAt: now + 300), now: now + 150))
            #expect(try await !store.scheduleRetries([raw("aa06")], once: DeliveryKey("k", expiresAt: now + 300), now: now + 150))
            #expect(try await store.pruneDeliveryKeys(now: now + 1_000) == 2)
        }
    }

    /// deadTokens finds the raw tokens a service called dead for a provider since a time, and no others
    public static func deadTokensOfAProvider(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            try await store.scheduleRetries([raw("aa01"), raw("aa02"), raw("aa03")])
            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "a", expiresAt: 60_000), nowMillis: 5_000)
            var settlement = Settlement()
            settlement.records = [
                DeliveryRecord(
                    subscriberID: nil, proto: "apns", token: "aa01", statisticsEvent: nil,
                    effect: .deadToken(reason: "Unregistered", status: 410, invalidSince: 1)),
                DeliveryRecord(
                    subscriberID: nil, proto: "apns", token: "aa02", statisticsEvent: nil, effect: .failed(reason: "PayloadTooLarge", status: 413)),
                DeliveryRecord(subscriberID: nil, proto: "apns", token: "aa03", statisticsEvent: nil, effect: .delivered),
            ]
            settlement.finishedRetries = claimed.map(\.id)
            _ = try await store.settle(settlement, maxFailures: 3, now: TestTime.t0)
            #expect(try await store.deadTokens(proto: "apns", among: ["aa01", "aa02", "aa03", "aa04"], since: 0) == ["aa01"])
            #expect(try await store.deadTokens(proto: "apns", among: ["aa01"], since: TestTime.t0) == ["aa01"], "reported at t0")
            #expect(try await store.deadTokens(proto: "apns", among: ["aa01"], since: TestTime.t0 + 1).isEmpty, "a pushkey updated since")
            #expect(try await store.deadTokens(proto: "fcm", among: ["aa01"], since: 0).isEmpty, "another provider's")
            #expect(try await store.deadTokens(proto: "apns", among: [], since: 0).isEmpty)
        }
    }

    /// settling raw-token outcomes writes feedback (`invalid` for dead tokens) and dead letters without a subscriber, with their origin
    public static func rawOutcomesSettleWithOrigin(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            try await store.scheduleRetries([raw("aa01"), raw("aa02")])
            let claimed = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "a", expiresAt: 60_000), nowMillis: 5_000)
            let origin = DeliveryOrigin("gorush")
            var settlement = Settlement()
            settlement.records = [
                DeliveryRecord(
                    subscriberID: nil, origin: origin, proto: "apns", token: "aa01", statisticsEvent: nil,
                    effect: .deadToken(reason: "Unregistered", status: 410, invalidSince: 1)),
                DeliveryRecord(
                    subscriberID: nil, origin: origin, proto: "apns", token: "aa02", statisticsEvent: nil,
                    effect: .failed(reason: "PayloadTooLarge", status: 413),
                    deadLetter: DeadLetterContent(
                        publication: Publication(content: .prepared(payload), origin: origin, statisticsEvent: nil, publishedAt: TestTime.t0),
                        silent: false, badge: nil, attempts: 1)),
            ]
            settlement.finishedRetries = claimed.map(\.id)
            let summary = try await store.settle(settlement, maxFailures: 3, now: TestTime.t0)
            #expect(summary.unregistered.isEmpty, "a raw token has no subscriber to unregister")
            #expect(try await store.backlog().retries == 0)

            let feedback = try await store.feedback(after: nil, since: nil, limit: 10)
            #expect(feedback.map(\.token) == ["aa01", "aa02"])
            #expect(feedback.map(\.action) == [.invalid, .failed])
            #expect(feedback.allSatisfy { $0.subscriberID == nil && $0.origin == origin })

            let letters = try await store.deadLetters(matching: DeadLetterFilter(origin: origin), after: nil, limit: 10)
            #expect(letters.count == 1)
            #expect(letters.first?.subscriberID == nil)
            #expect(letters.first?.content.notification == .prepared(payload))
            #expect(try await store.deadLetters(matching: DeadLetterFilter(event: "promo"), after: nil, limit: 10).count == 1)
            #expect(try await store.deadLetters(matching: DeadLetterFilter(origin: .pushd), after: nil, limit: 10).isEmpty)

            // Replayed as a raw delivery again, with its origin.
            let replay = try await store.replayDeadLetters(matching: DeadLetterFilter(origin: origin), limit: 10, nowMillis: 9_000)
            #expect(replay == DeadLetterReplay(replayed: 1, orphaned: 0))
            let again = try await store.claimDueRetries(limit: 10, lease: Lease(owner: "b", expiresAt: 60_000), nowMillis: 9_000)
            #expect(again.map(\.recipient) == [.token(proto: "apns", token: "aa02")])
            #expect(again.first?.origin == origin)
            #expect(again.first?.notification == .prepared(payload))
            #expect(again.first?.attempts == 0)
        }
    }

    /// feedback is filtered by origin and provider, each with a cursor
    public static func feedbackFiltersByOriginAndProvider(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            func entry(_ token: String, _ origin: String, _ proto: String, time: Int64 = TestTime.t0) -> FeedbackEntry {
                FeedbackEntry(
                    time: time, subscriberID: nil, origin: DeliveryOrigin(origin), proto: proto, token: token, status: 410, reason: "Unregistered",
                    action: .invalid)
            }
            try await store.appendFeedback([
                entry("t1", "gorush", "apns"), entry("t2", "pushd", "apns"), entry("t3", "gorush", "fcm"),
                entry("t4", "gorush", "apns", time: TestTime.t0 + 100),
            ])
            func tokens(_ filter: FeedbackFilter, after: Int64? = nil, since: Int64? = nil, limit: Int = 10) async throws -> [String] {
                try await store.feedback(matching: filter, after: after, since: since, limit: limit).map(\.token)
            }
            #expect(try await tokens(FeedbackFilter()) == ["t1", "t2", "t3", "t4"])
            #expect(try await tokens(FeedbackFilter(origin: DeliveryOrigin("gorush"))) == ["t1", "t3", "t4"])
            #expect(try await tokens(FeedbackFilter(origin: DeliveryOrigin("gorush"), proto: "apns")) == ["t1", "t4"])
            #expect(try await tokens(FeedbackFilter(proto: "fcm")) == ["t3"])
            #expect(try await tokens(FeedbackFilter(origin: .pushd)) == ["t2"])
            #expect(try await tokens(FeedbackFilter(origin: DeliveryOrigin("gorush")), since: TestTime.t0 + 50) == ["t4"])
            let first = try await store.feedback(matching: FeedbackFilter(origin: DeliveryOrigin("gorush")), after: nil, since: nil, limit: 1)
            #expect(try await tokens(FeedbackFilter(origin: DeliveryOrigin("gorush")), after: first.first?.id) == ["t3", "t4"])
        }
    }

    /// a publish job keeps the front-end it came through and its content, an event or a prepared payload
    public static func jobsKeepTheirOriginAndContent(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            _ = try await store.enqueue(.unicast(id), notification: sampleNotification(), origin: DeliveryOrigin("choominator"), now: TestTime.t0)
            let job = try await claimOnlyJob(store)
            #expect(job.origin == DeliveryOrigin("choominator"))
            #expect(job.content == .event(sampleNotification()))
            try await store.completeJob(jobID: job.id, owner: "worker-a")
            _ = try await store.enqueue(.broadcast, content: .prepared(payload), origin: DeliveryOrigin("choominator"), now: TestTime.t0)
            let prepared = try await claimOnlyJob(store, owner: "worker-b")
            #expect(prepared.content == .prepared(payload))
            #expect(prepared.audience == .broadcast)
        }
    }

    /// a front-end takes its own feedback once, of the actions it asks for, with the service's invalid-since time
    public static func frontEndsTakeTheirFeedbackOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            func entry(_ token: String, _ origin: String, _ action: FeedbackEntry.Action, invalidSince: Int64? = nil) -> FeedbackEntry {
                FeedbackEntry(
                    time: TestTime.t0, subscriberID: nil, origin: DeliveryOrigin(origin), proto: "apns", token: token, status: 410,
                    reason: "Unregistered", action: action, invalidSince: invalidSince)
            }
            let apnsMS = DeliveryOrigin("apns-ms")
            try await store.appendFeedback([
                entry("t1", "apns-ms", .invalid, invalidSince: 1_700_000_000_123), entry("t2", "gorush", .invalid),
                entry("t3", "apns-ms", .failed), entry("t4", "apns-ms", .invalid),
            ])
            let first = try await store.takeFeedback(origin: apnsMS, actions: [.invalid], limit: 1)
            #expect(first.map(\.token) == ["t1"])
            #expect(first.first?.invalidSince == 1_700_000_000_123)
            #expect(try await store.takeFeedback(origin: apnsMS, actions: [.invalid], limit: 10).map(\.token) == ["t4"])
            #expect(try await store.takeFeedback(origin: apnsMS, actions: [.invalid], limit: 10).isEmpty, "each entry is taken once")
            #expect(try await store.takeFeedback(origin: apnsMS, actions: [.failed, .invalid], limit: 10).map(\.token) == ["t3"])
            #expect(try await store.takeFeedback(origin: DeliveryOrigin("gorush"), actions: [.invalid], limit: 10).map(\.token) == ["t2"])
            // Taking does not hide entries from the log.
            #expect(try await store.feedback(after: nil, since: nil, limit: 10).count == 4)
        }
    }
}
