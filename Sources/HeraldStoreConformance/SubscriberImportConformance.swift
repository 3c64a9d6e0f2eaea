import HeraldCore
import HeraldStore
import Testing

/// `SubscriberImport`: subscribers written with their own ids, times, badges and subscriptions,
/// idempotently, leaving `(proto, identity)` conflicts alone (pushd-api.md §15).
public enum SubscriberImportConformance {
    /// The imported form of ``apns(_:proto:fields:)``'s token `n`, with id `id`.
    private static func imported(
        _ id: String, _ n: Int, fields: SubscriberFields = .init(), created: Int64 = TestTime.t0 - 1_000, updated: Int64 = TestTime.t0 - 10,
        subscriptions: [(String, Bool)] = []
    ) -> ImportedSubscriber {
        let registration = apns(n)
        return ImportedSubscriber(
            id: SubscriberID(rawValue: id), proto: registration.proto, token: registration.token, fields: fields, created: created,
            updated: updated, subscriptions: subscriptions.map { ImportedSubscription(event: event($0.0), ignoreMessage: $0.1) })
    }

    /// importSubscribers keeps ids, fields, badges, times and subscriptions
    public static func importKeepsEverything(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let fields = SubscriberFields(lang: "fr", badge: "7", version: "10.2", category: "news", contentAvailable: "true")
            let result = try await store.importSubscribers([
                imported("J8lHY4X1XkU", 1, fields: fields, created: 1_332_953_375, updated: 1_332_953_999,
                         subscriptions: [("sport", true), ("music", false)]),
                imported("Abc-_123456", 2, subscriptions: [("sport", false)]),
                imported("zzzzzzzzzzz", 3),
            ])
            #expect(result == SubscriberImportResult(inserted: 3, updated: 0, conflicts: [], subscriptions: 3))

            let first = try #require(try await store.subscriber(SubscriberID(rawValue: "J8lHY4X1XkU")))
            #expect(first.proto == "apns")
            #expect(first.token == apns(1).token)
            #expect(first.fields == fields)
            #expect(first.created == 1_332_953_375)
            #expect(first.updated == 1_332_953_999)
            #expect(try await store.subscriber(SubscriberID(rawValue: "zzzzzzzzzzz"))?.fields == SubscriberFields())

            let subscriptions = try #require(try await store.subscriptions(of: SubscriberID(rawValue: "J8lHY4X1XkU")))
            #expect(subscriptions.map(\.event.rawValue) == ["music", "sport"])
            #expect(subscriptions.map(\.ignoreMessage) == [false, true])
            #expect(try await store.subscription(of: SubscriberID(rawValue: "Abc-_123456"), to: event("sport")) == false)

            #expect(try await store.eventNames().map(\.rawValue) == ["music", "sport"])
            // An event created by the import dates from its earliest subscriber.
            #expect(try await store.statistics(of: event("sport")) == EventStatistics(created: 1_332_953_375, subscribers: 2))
            #expect(try await store.statistics(of: event("music"))?.subscribers == 1)
            #expect(try await store.counts() == StoreCounts(subscribers: 3, subscriptions: 3, events: 2, jobs: 0, retries: 0))

            // A registration of the same token finds the imported subscriber: nothing has to register again.
            let again = try await store.register(apns(1), now: TestTime.t0)
            #expect(again.created == false)
            #expect(again.subscriber.id.rawValue == "J8lHY4X1XkU")
        }
    }

    /// re-importing updates by id: fields, times, badge, subscription set; counts stay right
    public static func reimportUpdatesById(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let batch = [
                imported("aaaaaaaaaaa", 1, fields: SubscriberFields(lang: "fr", badge: "3"), subscriptions: [("sport", true), ("music", false)]),
                imported("bbbbbbbbbbb", 2, subscriptions: [("music", false)]),
            ]
            _ = try await store.importSubscribers(batch)
            let twice = try await store.importSubscribers(batch)
            #expect(twice == SubscriberImportResult(inserted: 0, updated: 2, conflicts: [], subscriptions: 3))
            #expect(try await store.counts() == StoreCounts(subscribers: 2, subscriptions: 3, events: 2, jobs: 0, retries: 0))
            #expect(try await store.statistics(of: event("music"))?.subscribers == 2)

            // The source changed meanwhile: a field cleared, another set, the badge moved, one
            // subscription dropped (emptying `sport`), one option changed, one event added.
            let changed = [
                imported("aaaaaaaaaaa", 1, fields: SubscriberFields(badge: "0", version: "12"), updated: TestTime.t0,
                         subscriptions: [("music", true), ("news", false)]),
                imported("bbbbbbbbbbb", 2, subscriptions: [("music", false)]),
            ]
            let result = try await store.importSubscribers(changed)
            #expect(result == SubscriberImportResult(inserted: 0, updated: 2, conflicts: [], subscriptions: 3))
            let first = try #require(try await store.subscriber(SubscriberID(rawValue: "aaaaaaaaaaa")))
            #expect(first.fields == SubscriberFields(badge: "0", version: "12"))
            #expect(first.updated == TestTime.t0)
            #expect(try await store.subscription(of: SubscriberID(rawValue: "aaaaaaaaaaa"), to: event("music")) == true)
            #expect(try await store.eventNames().map(\.rawValue) == ["music", "news"])
            #expect(try await store.statistics(of: event("sport")) == nil)
            #expect(try await store.statistics(of: event("music"))?.subscribers == 2)
            #expect(try await store.statistics(of: event("news"))?.subscribers == 1)
            #expect(try await store.counts() == StoreCounts(subscribers: 2, subscriptions: 3, events: 2, jobs: 0, retries: 0))
        }
    }

    /// a (proto, token) another id holds is reported and left alone, in the store and within a batch
    public static func importLeavesConflictsAlone(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let registered = try await store.register(apns(1, fields: SubscriberFields(lang: "de")), now: TestTime.t0)
            _ = try await store.subscribe(registered.subscriber.id, to: event("sport"), ignoreMessage: false, now: TestTime.t0)

            let result = try await store.importSubscribers([
                imported("ccccccccccc", 1, fields: SubscriberFields(lang: "fr"), subscriptions: [("sport", true), ("other", false)]),
                imported("ddddddddddd", 2, subscriptions: [("sport", false)]),
                // The same token twice in one batch: the first holder wins.
                imported("eeeeeeeeeee", 3, subscriptions: [("late", false)]),
                imported("fffffffffff", 3, subscriptions: [("late", false)]),
            ])
            #expect(result.inserted == 2)
            #expect(result.updated == 0)
            #expect(Set(result.conflicts.map(\.rawValue)) == ["ccccccccccc", "fffffffffff"])
            #expect(result.subscriptions == 2)

            #expect(try await store.subscriber(SubscriberID(rawValue: "ccccccccccc")) == nil)
            #expect(try await store.subscriber(SubscriberID(rawValue: "fffffffffff")) == nil)
            let kept = try #require(try await store.subscriber(registered.subscriber.id))
            #expect(kept.fields.lang == "de")
            #expect(try await store.subscription(of: registered.subscriber.id, to: event("sport")) == false)
            #expect(try await store.statistics(of: event("other")) == nil)
            #expect(try await store.statistics(of: event("sport"))?.subscribers == 2)
            #expect(try await store.statistics(of: event("late"))?.subscribers == 1)
            #expect(try await store.counts() == StoreCounts(subscribers: 3, subscriptions: 3, events: 2, jobs: 0, retries: 0))
        }
    }

    /// importEventStatistics writes statistics of events that exist and drops the others
    public static func importEventStatistics(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.importSubscribers([
                imported("aaaaaaaaaaa", 1, subscriptions: [("sport", false)]),
                imported("bbbbbbbbbbb", 2, subscriptions: [("sport", true)]),
            ])
            let written = try await store.importEventStatistics([
                ImportedEventStatistics(event: event("sport"), created: 1_300_000_000, total: 154, last: 1_334_099_001),
                ImportedEventStatistics(event: event("gone"), created: 1_300_000_000, total: 3, last: 1_300_000_100),
                ImportedEventStatistics(event: .broadcast, created: 1_310_000_000, total: 2, last: 1_320_000_000),
                ImportedEventStatistics(event: event("unicast:aaaaaaaaaaa"), created: 1_311_000_000, total: 1, last: 1_311_000_000),
                ImportedEventStatistics(event: event("unicast:nobody12345"), created: 1_311_000_000, total: 1, last: 1_311_000_000),
            ])
            #expect(written.map(\.rawValue) == ["broadcast", "sport", "unicast:aaaaaaaaaaa"])
            #expect(try await store.statistics(of: event("sport"))
                == EventStatistics(created: 1_300_000_000, last: 1_334_099_001, total: 154, subscribers: 2))
            #expect(try await store.statistics(of: event("gone")) == nil)
            #expect(try await store.statistics(of: .broadcast)
                == EventStatistics(created: 1_310_000_000, last: 1_320_000_000, total: 2, subscribers: 2))
            #expect(try await store.statistics(of: event("unicast:aaaaaaaaaaa"))?.total == 1)
            #expect(try await store.statistics(of: event("unicast:nobody12345")) == nil)
            #expect(try await store.eventNames().map(\.rawValue) == ["sport"])

            // Again, with a publish never made: `last` absent, counts unchanged.
            let again = try await store.importEventStatistics([ImportedEventStatistics(event: event("sport"), created: 1_300_000_000)])
            #expect(again.map(\.rawValue) == ["sport"])
            #expect(try await store.statistics(of: event("sport")) == EventStatistics(created: 1_300_000_000, subscribers: 2))

            // Re-importing the subscribers keeps the statistics.
            _ = try await store.importSubscribers([
                imported("aaaaaaaaaaa", 1, subscriptions: [("sport", false)]),
                imported("bbbbbbbbbbb", 2, subscriptions: [("sport", true)]),
            ])
            #expect(try await store.statistics(of: event("sport")) == EventStatistics(created: 1_300_000_000, subscribers: 2))
            // Deleting the subscribers deletes what hangs on them, as for any subscriber.
            _ = try await store.deleteSubscriber(SubscriberID(rawValue: "aaaaaaaaaaa"))
            _ = try await store.deleteSubscriber(SubscriberID(rawValue: "bbbbbbbbbbb"))
            #expect(try await store.counts() == .empty)
        }
    }

    /// a batch of thousands is written in one call
    public static func importLargeBatch(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let batch = (0..<3_000).map { n in
                imported("id" + String(repeating: "0", count: 9 - String(n).count) + String(n), n, fields: SubscriberFields(badge: String(n % 5)), subscriptions: [("all", n % 2 == 0)])
            }
            let result = try await store.importSubscribers(batch)
            #expect(result == SubscriberImportResult(inserted: 3_000, updated: 0, conflicts: [], subscriptions: 3_000))
            #expect(try await store.statistics(of: event("all"))?.subscribers == 3_000)
            #expect(try await store.subscriber(SubscriberID(rawValue: "id000002999"))?.fields.badge == "4")
            let again = try await store.importSubscribers(batch)
            #expect(again.updated == 3_000)
            #expect(try await store.counts() == StoreCounts(subscribers: 3_000, subscriptions: 3_000, events: 1, jobs: 0, retries: 0))
        }
    }
}
