import HeraldCore
import HeraldStore
import Testing

/// `FeedbackLog`: delivery outcomes, failure counters, unregistration and the feedback log (§11, §14).
public enum FeedbackConformance {
    /// A record for `subscriber` counted in `statistics`.
    private static func record(_ subscriber: Subscriber, _ effect: DeliveryRecord.Effect, statistics: EventName? = event("e")) -> DeliveryRecord {
        DeliveryRecord(subscriberID: subscriber.id, proto: subscriber.proto, token: subscriber.token, statisticsEvent: statistics, effect: effect)
    }

    /// Registers `count` subscribers, all subscribed to `e`.
    private static func subscribers(_ store: any HeraldStore, count: Int, now: Int64 = TestTime.t0) async throws -> [Subscriber] {
        var result: [Subscriber] = []
        for n in 0..<count {
            let subscriber = try await store.register(apns(n), now: now).subscriber
            _ = try await store.subscribe(subscriber.id, to: event("e"), ignoreMessage: false, now: now)
            result.append(subscriber)
        }
        return result
    }

    /// delivered counts in statistics and resets the failure counter
    public static func delivered(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 2)
            _ = try await store.record([record(s[0], .subscriberFailure(reason: "x", status: 403))], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s[0].id)?.failures == 1)

            let summary = try await store.record([record(s[0], .delivered), record(s[1], .delivered)], maxFailures: 5, now: TestTime.t0)
            #expect(summary.unregistered.isEmpty)
            #expect(try await store.subscriber(s[0].id)?.failures == 0)
            let statistics = try #require(try await store.statistics(of: event("e")))
            #expect(statistics.delivered == 2)
            #expect(statistics.failed == 1)
            // Successes leave no trace in the feedback log.
            #expect(try await store.feedback(after: nil, since: nil, limit: 100).count == 1)
        }
    }

    /// a page of successes resets its own failing subscribers only, beside failures in the same page
    public static func resetsBesideFailures(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 4)
            let failure = DeliveryRecord.Effect.subscriberFailure(reason: "x", status: nil)
            _ = try await store.record([record(s[0], failure), record(s[1], failure), record(s[2], failure)], maxFailures: 5, now: TestTime.t0)
            _ = try await store.record(
                [record(s[0], .delivered), record(s[1], failure), record(s[3], .delivered)], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s[0].id)?.failures == 0)
            #expect(try await store.subscriber(s[1].id)?.failures == 2)
            #expect(try await store.subscriber(s[2].id)?.failures == 1, "not in the page")
            #expect(try await store.subscriber(s[3].id)?.failures == 0)
            _ = try await store.record([record(s[1], .delivered), record(s[2], .delivered)], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s[1].id)?.failures == 0)
            #expect(try await store.subscriber(s[2].id)?.failures == 0)
        }
    }

    /// a success whose counter was read as 0 writes no reset, but resets failures earlier in its records
    public static func resetsOnlyCountersReadAboveZero(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 4)
            let failure = DeliveryRecord.Effect.subscriberFailure(reason: "x", status: nil)
            func unread(_ subscriber: Subscriber) -> DeliveryRecord {
                var success = record(subscriber, .delivered)
                success.resetsFailures = false
                return success
            }
            // Failures counted after the deliveries' reads (which found 0).
            _ = try await store.record([record(s[0], failure), record(s[2], failure)], maxFailures: 5, now: TestTime.t0)
            // Successes only (each backend's usual page): the counter read as 0 is not reset.
            _ = try await store.record([unread(s[0]), record(s[2], .delivered)], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s[0].id)?.failures == 1, "counted after the read, kept")
            #expect(try await store.subscriber(s[2].id)?.failures == 0, "read above 0, reset")
            // With failures in the batch: the same, and a failure earlier in the records is reset.
            _ = try await store.record(
                [unread(s[0]), record(s[1], failure), unread(s[1]), record(s[3], failure)], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s[0].id)?.failures == 1)
            #expect(try await store.subscriber(s[1].id)?.failures == 0, "its failure came earlier in the records")
            #expect(try await store.subscriber(s[3].id)?.failures == 1)
            #expect(try await store.statistics(of: event("e"))?.delivered == 4)
        }
    }

    /// failure counters follow the records in order
    public static func counterOrder(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 1)[0]
            let failure = DeliveryRecord.Effect.subscriberFailure(reason: "x", status: nil)
            _ = try await store.record([record(s, failure), record(s, failure), record(s, .delivered), record(s, failure)], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s.id)?.failures == 1)
            _ = try await store.record([record(s, failure), record(s, failure)], maxFailures: 5, now: TestTime.t0)
            #expect(try await store.subscriber(s.id)?.failures == 3)
            #expect(try await store.statistics(of: event("e"))?.failed == 5)
            #expect(try await store.statistics(of: event("e"))?.delivered == 1)
        }
    }

    /// subscriber failures unregister at maxFailures with reason failures:<n>
    public static func failureThreshold(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 2)
            let failure = DeliveryRecord.Effect.subscriberFailure(reason: "connection refused", status: 503)
            let first = try await store.record([record(s[0], failure), record(s[1], .delivered)], maxFailures: 2, now: TestTime.t0)
            #expect(first.unregistered.isEmpty)
            #expect(try await store.subscriber(s[0].id)?.failures == 1)

            let second = try await store.record([record(s[0], failure)], maxFailures: 2, now: TestTime.t0 + 1)
            #expect(second == RecordSummary(unregistered: [(s[0].id, "failures:2")]))
            #expect(try await store.subscriber(s[0].id) == nil)
            #expect(try await store.statistics(of: event("e"))?.subscribers == 1)

            let log = try await store.feedback(after: nil, since: nil, limit: 100)
            let unregistration = try #require(log.last)
            #expect(unregistration.action == .unregistered)
            #expect(unregistration.reason == "failures:2")
            #expect(unregistration.subscriberID == s[0].id)
            #expect(unregistration.token == s[0].token)
            #expect(unregistration.proto == "apns")
            #expect(unregistration.status == 503)
            #expect(unregistration.time == TestTime.t0 + 1)
            #expect(log.filter { $0.action == .failed && $0.reason == "connection refused" }.count == 2)
        }
    }

    /// maxFailures 0 never unregisters for failures
    public static func thresholdDisabled(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 1)[0]
            let failures = Array(repeating: record(s, .subscriberFailure(reason: "x", status: nil)), count: 7)
            let summary = try await store.record(failures, maxFailures: 0, now: TestTime.t0)
            #expect(summary.unregistered.isEmpty)
            #expect(try await store.subscriber(s.id)?.failures == 7)
        }
    }

    /// dead tokens unregister unless the subscriber registered again since
    public static func deadTokens(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 3, now: TestTime.t0)
            let updatedMillis = TestTime.t0 * 1_000
            let summary = try await store.record([
                record(s[0], .deadToken(reason: "Unregistered", status: 410, invalidSince: updatedMillis + 1)),
                record(s[1], .deadToken(reason: "Unregistered", status: 410, invalidSince: updatedMillis - 1)),
                record(s[2], .deadToken(reason: "BadDeviceToken", status: 400, invalidSince: nil)),
            ], maxFailures: 5, now: TestTime.t0 + 5)

            #expect(summary == RecordSummary(unregistered: [(s[0].id, "Unregistered"), (s[2].id, "BadDeviceToken")]))
            #expect(try await store.subscriber(s[0].id) == nil)
            #expect(try await store.subscriber(s[1].id) != nil)
            #expect(try await store.subscriber(s[2].id) == nil)
            #expect(try await store.statistics(of: event("e")) == EventStatistics(created: TestTime.t0, total: 0, subscribers: 1, delivered: 0, failed: 3))

            let log = try await store.feedback(after: nil, since: nil, limit: 100)
            #expect(log.map(\.action) == [.unregistered, .kept, .unregistered])
            #expect(log.map(\.subscriberID) == s.map(\.id))
            #expect(log.map(\.status) == [410, 410, 400])
            #expect(log.map(\.reason) == ["Unregistered", "Unregistered", "BadDeviceToken"])

            // Re-registering the last subscriber deletes the event and all statistics of the others.
            #expect(try await store.deleteSubscriber(s[1].id))
            #expect(try await store.counts() == .empty)
        }
    }

    /// failed counts without touching the subscriber; /test counts nowhere
    public static func plainFailures(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let s = try await subscribers(store, count: 1)[0]
            let summary = try await store.record([
                record(s, .failed(reason: "PayloadTooLarge", status: 413)),
                record(s, .delivered, statistics: nil),
                record(s, .failed(reason: "x", status: nil), statistics: nil),
                record(s, .delivered, statistics: event("deleted-meanwhile")),
            ], maxFailures: 1, now: TestTime.t0)
            #expect(summary.unregistered.isEmpty)
            #expect(try await store.subscriber(s.id)?.failures == 0)
            #expect(try await store.statistics(of: event("e")) == EventStatistics(created: TestTime.t0, subscribers: 1, delivered: 0, failed: 1))
            // Statistics of an event that no longer exists are not recreated.
            #expect(try await store.statistics(of: event("deleted-meanwhile")) == nil)
            let log = try await store.feedback(after: nil, since: nil, limit: 10)
            #expect(log.map(\.action) == [.failed, .failed])
            #expect(log.map(\.status) == [413, nil])
            #expect(try await store.record([], maxFailures: 5, now: TestTime.t0) == RecordSummary())
        }
    }

    /// a page of 500 outcomes is recorded in one call
    public static func recordPage(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 500)
            for id in ids {
                _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0)
            }
            var records: [DeliveryRecord] = []
            for (index, id) in ids.enumerated() {
                let effect: DeliveryRecord.Effect = index % 10 == 0 ? .subscriberFailure(reason: "x", status: 403) : .delivered
                records.append(DeliveryRecord(subscriberID: id, proto: "apns", token: "t\(index)", statisticsEvent: event("e"), effect: effect))
            }
            let summary = try await store.record(records, maxFailures: 1, now: TestTime.t0)
            #expect(summary.unregistered.count == 50)
            #expect(Set(summary.unregistered.map(\.id)) == Set(ids.enumerated().filter { $0.offset % 10 == 0 }.map(\.element)))
            #expect(summary.unregistered.allSatisfy { $0.reason == "failures:1" })
            let statistics = try #require(try await store.statistics(of: event("e")))
            #expect(statistics.delivered == 450)
            #expect(statistics.failed == 50)
            #expect(statistics.subscribers == 450)
            #expect(try await store.counts().subscribers == 450)
        }
    }

    /// the feedback log pages by cursor and filters by time
    public static func feedbackPaging(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.feedback(after: nil, since: nil, limit: 10).isEmpty)
            let entries = (0..<5).map { n in
                FeedbackEntry(
                    id: 999, time: TestTime.t0 + Int64(n) * 10, subscriberID: SubscriberID(rawValue: "s\(n)"), proto: "wns",
                    token: "https://x.notify.windows.com/\(n)", status: n == 0 ? nil : 200 + n, reason: "provider not configured", action: .skipped
                )
            }
            try await store.appendFeedback(entries)

            let all = try await store.feedback(after: nil, since: nil, limit: 10)
            #expect(all.map(\.subscriberID?.rawValue) == ["s0", "s1", "s2", "s3", "s4"])
            #expect(all.map(\.id) == all.map(\.id).sorted())
            #expect(Set(all.map(\.id)).count == 5)
            var expected = entries[3]
            expected.id = all[3].id
            #expect(all[3] == expected)
            #expect(all[0].status == nil)

            let firstPage = try await store.feedback(after: nil, since: nil, limit: 2)
            #expect(firstPage.map(\.subscriberID?.rawValue) == ["s0", "s1"])
            let secondPage = try await store.feedback(after: firstPage.last?.id, since: nil, limit: 2)
            #expect(secondPage.map(\.subscriberID?.rawValue) == ["s2", "s3"])
            let lastPage = try await store.feedback(after: secondPage.last?.id, since: nil, limit: 2)
            #expect(lastPage.map(\.subscriberID?.rawValue) == ["s4"])
            #expect(try await store.feedback(after: lastPage.last?.id, since: nil, limit: 2).isEmpty)

            let recent = try await store.feedback(after: nil, since: TestTime.t0 + 20, limit: 10)
            #expect(recent.map(\.subscriberID?.rawValue) == ["s2", "s3", "s4"])
            let both = try await store.feedback(after: all[3].id, since: TestTime.t0 + 20, limit: 10)
            #expect(both.map(\.subscriberID?.rawValue) == ["s4"])
            // The log is not part of what the API can empty.
            #expect(try await store.counts() == .empty)
        }
    }
}

/// `FeedbackLog.replaceTokens`: a push service's newer token replaces the stored one.
public enum TokenReplacementConformance {
    /// a replacement is stored with a `replaced` entry; a duplicate holder is deleted instead
    public static func replacements(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let old = try await store.register(apns(1, proto: "gcm"), now: TestTime.t0).subscriber
            let other = try await store.register(apns(2, proto: "gcm"), now: TestTime.t0).subscriber
            let holder = try await store.register(apns(3, proto: "gcm"), now: TestTime.t0).subscriber
            _ = try await store.subscribe(other.id, to: event("e"), ignoreMessage: false, now: TestTime.t0)

            let deleted = try await store.replaceTokens([
                TokenReplacement(subscriberID: old.id, proto: "gcm", oldToken: old.token, newToken: "canonical-1", identity: "canonical-1"),
                TokenReplacement(subscriberID: other.id, proto: "gcm", oldToken: other.token, newToken: holder.token, identity: holder.token),
            ], now: TestTime.t0 + 5)
            #expect(deleted == [other.id])
            let updated = try #require(try await store.subscriber(old.id))
            #expect(updated.token == "canonical-1")
            #expect(updated.updated == TestTime.t0 + 5)
            #expect(try await store.subscriber(other.id) == nil)
            #expect(try await store.subscriber(holder.id) != nil)
            #expect(try await store.statistics(of: event("e")) == nil, "the event went with its only subscriber")
            // Registering the new token again finds the same subscriber.
            #expect(try await store.register(SubscriberRegistration(proto: "gcm", token: "canonical-1"), now: TestTime.t0 + 6).subscriber.id == old.id)

            let entries = try await store.feedback(after: nil, since: nil, limit: 10)
            #expect(entries.map(\.action) == [.replaced, .unregistered])
            #expect(entries.map(\.replacement) == ["canonical-1", holder.token])
            #expect(entries.map(\.token) == [old.token, other.token])
            #expect(entries.allSatisfy { $0.reason == "CanonicalRegistrationID" })
        }
    }
}
