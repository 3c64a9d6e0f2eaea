import HeraldCore
import HeraldStore
import Testing

/// `EventStore`: event names, statistics and their special names, event deletion (§4.13, §4.14, §4.16, §14).
public enum EventConformance {
    /// eventNames lists subscribed names in byte order, special names only when subscribed
    public static func eventNamesByteOrder(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.eventNames().isEmpty)
            let ids = try await registerMany(store, count: 2)
            for name in ["sport", "Sport", "music", "_", "9", "user@x", "unicast:\(ids[1].rawValue)", "broadcast", "v"] {
                _ = try await store.subscribe(ids[0], to: event(name), ignoreMessage: false, now: TestTime.t0)
            }
            // Statistics of special names without subscriptions are not events.
            _ = try await store.enqueue(.unicast(ids[0]), notification: sampleNotification(), now: TestTime.t0)
            let expected = ["9", "Sport", "_", "broadcast", "music", "sport", "unicast:\(ids[1].rawValue)", "user@x", "v"]
            #expect(try await store.eventNames().map(\.rawValue) == expected)
            #expect(expected == expected.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        }
    }

    /// ordinary statistics: created at first subscription, total and last on publish
    public static func ordinaryStatistics(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 3)
            #expect(try await store.enqueue(.subscribers(event("e1")), notification: sampleNotification("e1"), now: TestTime.t0) == .noAudience)
            #expect(try await store.statistics(of: event("e1")) == nil)

            _ = try await store.subscribe(ids[0], to: event("e1"), ignoreMessage: false, now: TestTime.t0 + 1)
            _ = try await store.subscribe(ids[1], to: event("e1"), ignoreMessage: true, now: TestTime.t0 + 2)
            #expect(try await store.statistics(of: event("e1")) == EventStatistics(created: TestTime.t0 + 1, last: nil, total: 0, subscribers: 2))

            guard case .queued = try await store.enqueue(.subscribers(event("e1")), notification: sampleNotification("e1"), now: TestTime.t0 + 10) else {
                Issue.record("publish to a subscribed event was not queued")
                return
            }
            #expect(try await store.statistics(of: event("e1")) == EventStatistics(created: TestTime.t0 + 1, last: TestTime.t0 + 10, total: 1, subscribers: 2))
            _ = try await store.enqueue(.subscribers(event("e1")), notification: sampleNotification("e1"), now: TestTime.t0 + 20)
            #expect(try await store.statistics(of: event("e1")) == EventStatistics(created: TestTime.t0 + 1, last: TestTime.t0 + 20, total: 2, subscribers: 2))
        }
    }

    /// subscriber counts follow every path that adds or removes subscriptions and subscribers
    public static func subscriberCountsDoNotDrift(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            // Bulk registration subscribing to a new event, then a few single ones.
            let bulk = try await store.registerMany((0..<50).map { apns($0) }, subscribingTo: event("news"), now: TestTime.t0)
            let ids = try await registerMany(store, count: 5)  // apns(0..<5): the same tokens, so the same subscribers
            #expect(Set(ids).isSubset(of: Set(bulk)))
            let extra = try await store.register(apns(100), now: TestTime.t0).subscriber.id
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            #expect(try await store.statistics(of: event("news"))?.subscribers == 50)
            #expect(try await store.statistics(of: .broadcast)?.subscribers == 51)

            // Subscribe twice (the second only updates), to another event, and unsubscribe.
            #expect(try await store.subscribe(extra, to: event("news"), ignoreMessage: false, now: TestTime.t0) == .created)
            #expect(try await store.subscribe(extra, to: event("news"), ignoreMessage: true, now: TestTime.t0) == .updated)
            #expect(try await store.subscribe(extra, to: event("sport"), ignoreMessage: false, now: TestTime.t0) == .created)
            #expect(try await store.statistics(of: event("news"))?.subscribers == 51)
            #expect(try await store.unsubscribe(bulk[0], from: event("news")))
            #expect(try await store.statistics(of: event("news"))?.subscribers == 50)

            // Replacing a subscriber's subscriptions, deleting subscribers (the cascade), re-registering.
            #expect(try await store.replaceSubscriptions(of: bulk[1], with: [(event("sport"), false)], now: TestTime.t0))
            #expect(try await store.statistics(of: event("news"))?.subscribers == 49)
            #expect(try await store.statistics(of: event("sport"))?.subscribers == 2)
            #expect(try await store.deleteSubscriber(extra))
            #expect(try await store.deleteSubscriber(bulk[2]))
            #expect(try await store.statistics(of: event("news"))?.subscribers == 47)
            #expect(try await store.statistics(of: event("sport"))?.subscribers == 1)
            #expect(try await store.statistics(of: .broadcast)?.subscribers == 49)
            _ = try await store.register(apns(2), now: TestTime.t0)
            #expect(try await store.statistics(of: .broadcast)?.subscribers == 50)

            // An event deleted and subscribed to again starts from its new subscriptions.
            #expect(try await store.deleteEvent(event("news")))
            #expect(try await store.statistics(of: event("news")) == nil)
            _ = try await store.subscribe(bulk[3], to: event("news"), ignoreMessage: false, now: TestTime.t0)
            #expect(try await store.statistics(of: event("news"))?.subscribers == 1)
            #expect(try await store.unsubscribe(bulk[1], from: event("sport")))
            #expect(try await store.statistics(of: event("sport")) == nil)
            #expect(try await store.counts().subscribers == 50)
        }
    }

    /// broadcast statistics exist from the first broadcast and go with the last subscriber
    public static func broadcastStatistics(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0) == .noAudience)
            #expect(try await store.statistics(of: .broadcast) == nil)

            let ids = try await registerMany(store, count: 3)
            #expect(try await store.statistics(of: .broadcast) == nil)
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0 + 5)
            #expect(try await store.statistics(of: .broadcast) == EventStatistics(created: TestTime.t0 + 5, last: TestTime.t0 + 5, total: 1, subscribers: 3))
            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0 + 8)
            #expect(try await store.statistics(of: .broadcast) == EventStatistics(created: TestTime.t0 + 5, last: TestTime.t0 + 8, total: 2, subscribers: 3))

            #expect(try await store.deleteSubscriber(ids[0]))
            #expect(try await store.statistics(of: .broadcast)?.subscribers == 2)
            #expect(try await store.deleteSubscriber(ids[1]))
            #expect(try await store.deleteSubscriber(ids[2]))
            #expect(try await store.statistics(of: .broadcast) == nil)
            #expect(try await store.counts().events == 0)
        }
    }

    /// unicast statistics exist from the first unicast and go with the subscriber
    public static func unicastStatistics(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let unknown = SubscriberID(rawValue: "doesnotexist")
            #expect(try await store.enqueue(.unicast(unknown), notification: sampleNotification(), now: TestTime.t0) == .unknownSubscriber)
            #expect(try await store.statistics(of: .unicast(unknown)) == nil)
            #expect(try await store.backlog().jobs == 0)

            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            #expect(try await store.statistics(of: .unicast(id)) == nil)
            _ = try await store.enqueue(.unicast(id), notification: sampleNotification(), now: TestTime.t0 + 3)
            #expect(try await store.statistics(of: .unicast(id)) == EventStatistics(created: TestTime.t0 + 3, last: TestTime.t0 + 3, total: 1, subscribers: 1))
            #expect(try await store.eventNames().isEmpty)

            #expect(try await store.deleteSubscriber(id))
            #expect(try await store.statistics(of: .unicast(id)) == nil)
        }
    }

    /// test publishes touch no statistics
    public static func testPublishHasNoStatistics(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.enqueue(.test(SubscriberID(rawValue: "invalidid")), notification: sampleNotification("test"), now: TestTime.t0) == .unknownSubscriber)
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            guard case .queued = try await store.enqueue(.test(id), notification: sampleNotification("test"), now: TestTime.t0) else {
                Issue.record("test publish was not queued")
                return
            }
            #expect(try await store.counts().events == 0)
            #expect(try await store.statistics(of: .test) == nil)
            #expect(try await store.statistics(of: .unicast(id)) == nil)
            #expect(try await store.backlog().jobs == 1)
        }
    }

    /// deleteEvent on an ordinary name removes its subscriptions, not its subscribers
    public static func deleteOrdinaryEvent(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            for id in ids {
                _ = try await store.subscribe(id, to: event("e1"), ignoreMessage: false, now: TestTime.t0)
                _ = try await store.subscribe(id, to: event("e2"), ignoreMessage: false, now: TestTime.t0)
            }
            #expect(try await store.deleteEvent(event("e1")))
            #expect(try await store.statistics(of: event("e1")) == nil)
            #expect(try await store.subscriptions(of: ids[0])?.map(\.event) == [event("e2")])
            #expect(try await store.eventNames() == [event("e2")])
            #expect(try await store.counts().subscribers == 2)
            #expect(try await store.deleteEvent(event("e1")) == false)
            #expect(try await store.deleteEvent(event("never")) == false)
        }
    }

    /// deleteEvent on special names clears statistics and explicit subscriptions only
    public static func deleteSpecialEvents(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            #expect(try await store.deleteEvent(.broadcast) == false)
            #expect(try await store.deleteEvent(.unicast(ids[0])) == false)

            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0)
            _ = try await store.enqueue(.unicast(ids[0]), notification: sampleNotification(), now: TestTime.t0)
            _ = try await store.subscribe(ids[1], to: .broadcast, ignoreMessage: true, now: TestTime.t0)
            _ = try await store.subscribe(ids[1], to: event("sport"), ignoreMessage: false, now: TestTime.t0)

            #expect(try await store.deleteEvent(.broadcast))
            #expect(try await store.statistics(of: .broadcast) == nil)
            #expect(try await store.subscriptions(of: ids[1])?.map(\.event) == [event("sport")])
            #expect(try await store.deleteEvent(.broadcast) == false)

            #expect(try await store.deleteEvent(.unicast(ids[0])))
            #expect(try await store.statistics(of: .unicast(ids[0])) == nil)
            #expect(try await store.deleteEvent(.unicast(ids[0])) == false)

            // Only an explicit subscription to the special name: still something to clear.
            _ = try await store.subscribe(ids[0], to: .unicast(ids[1]), ignoreMessage: false, now: TestTime.t0)
            #expect(try await store.deleteEvent(.unicast(ids[1])))
            #expect(try await store.subscriptions(of: ids[0])?.isEmpty == true)

            #expect(try await store.counts().subscribers == 2)
            #expect(try await store.statistics(of: event("sport"))?.subscribers == 1)
        }
    }

    /// explicit subscriptions to special names are stored but are not their statistics
    public static func subscriptionsToSpecialNames(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            #expect(try await store.subscribe(ids[0], to: .broadcast, ignoreMessage: true, now: TestTime.t0) == .created)
            #expect(try await store.subscription(of: ids[0], to: .broadcast) == true)
            #expect(try await store.statistics(of: .broadcast) == nil)
            #expect(try await store.eventNames() == [.broadcast])

            _ = try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0 + 1)
            #expect(try await store.statistics(of: .broadcast)?.subscribers == 2)
            // Removing the explicit subscription does not delete the broadcast statistics.
            #expect(try await store.unsubscribe(ids[0], from: .broadcast))
            #expect(try await store.statistics(of: .broadcast)?.total == 1)
            #expect(try await store.eventNames().isEmpty)

            _ = try await store.subscribe(ids[0], to: .unicast(ids[1]), ignoreMessage: true, now: TestTime.t0)
            _ = try await store.enqueue(.unicast(ids[1]), notification: sampleNotification(), now: TestTime.t0 + 2)
            #expect(try await store.replaceSubscriptions(of: ids[0], with: [], now: TestTime.t0 + 3))
            #expect(try await store.statistics(of: .unicast(ids[1]))?.total == 1)
            // Deleting the subscriber that made the explicit subscription keeps the named subscriber's statistics.
            _ = try await store.subscribe(ids[0], to: .unicast(ids[1]), ignoreMessage: true, now: TestTime.t0)
            #expect(try await store.deleteSubscriber(ids[0]))
            #expect(try await store.statistics(of: .unicast(ids[1]))?.total == 1)
        }
    }
}
