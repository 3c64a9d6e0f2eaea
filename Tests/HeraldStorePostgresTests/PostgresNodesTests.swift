import HeraldCore
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestFixtures
import Testing

/// What only a shared store has: several nodes (stores) on one database.
@Suite("PostgreSQL: several nodes on one database")
struct PostgresNodesTests {
    @Test("nodes starting together on an empty database migrate it once, and all become ready")
    func concurrentStartsMigrateOnce() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<4 {
                group.addTask { try await PostgresTestStores.open(database: database) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        for store in stores {
            try await store.ping()
            #expect(try await store.counts() == StoreCounts(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0))
        }
        for store in stores { try await store.close() }
    }

    @Test("what one node writes, another reads at once; its commits wake the other node")
    func commitsWakeOtherNodes() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let a = try await PostgresTestStores.open(database: database)
        let b = try await PostgresTestStores.open(database: database)
        var wakeUps = b.wakeUps().makeAsyncIterator()
        try await waitUntilListening(b)
        let id = try await a.register(SubscriberRegistration(proto: "apns", token: String(repeating: "a", count: 64)), now: 1_700_000_000).subscriber.id
        #expect(try await b.subscriber(id)?.id == id)
        guard case .queued = try await a.enqueue(.unicast(id), notification: PublishedEvent(event: "e"), now: 1_700_000_000) else {
            Issue.record("not queued")
            return
        }
        #expect(await wakeUps.next() == .jobs)
        try await a.scheduleRetries([
            QueuedDelivery(
                recipient: .token(proto: "apns", token: "t"), statisticsEvent: nil, notification: .event(PublishedEvent(event: "e")),
                silent: false, badge: nil, attempts: 0, dueAt: 0, publishedAt: 1_700_000_000, lastReason: nil),
        ])
        #expect(await wakeUps.next() == .deliveries)
        // A publish to an event's subscribers (one statement of its own) wakes the other node too.
        let event = try #require(EventName("news"))
        _ = try await a.subscribe(id, to: event, ignoreMessage: false, now: 1_700_000_000)
        var notification = PublishedEvent(event: "news")
        notification.publishID = DeliveryContent.newPublishID()
        let publish = PublishRequest(
            audience: .subscribers(event), content: .event(notification), origin: .pushd, event: "news", dueAt: nil, idempotency: nil)
        guard case .queued = try await a.enqueue(publish, now: 1_700_000_000) else {
            Issue.record("not queued")
            return
        }
        #expect(await wakeUps.next() == .jobs)
        try await a.close()
        try await b.close()
    }

    @Test("announced events reach every node's listeners once, in the payload or (past 8000 bytes) through a row")
    func announcementsReachOtherNodes() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let a = try await PostgresTestStores.open(database: database)
        let b = try await PostgresTestStores.open(database: database)
        var onA = a.wakeUps().makeAsyncIterator()
        var onB = b.wakeUps().makeAsyncIterator()
        try await waitUntilListening(b)
        let small = PublishedEvent(event: "small", message: LocalizedText(["default": "hello"]))
        let large = PublishedEvent(event: "large", message: LocalizedText(["default": String(repeating: "é", count: 6_000)]))
        try await a.announce(small)
        try await a.announce(large)
        #expect(await onA.next() == .event(small))
        #expect(await onA.next() == .event(large))
        #expect(await onB.next() == .event(small))
        #expect(await onB.next() == .event(large))
        try await a.close()
        try await b.close()
    }

    @Test("two nodes claiming at once share the jobs: each job is claimed by exactly one")
    func claimsAreShared() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let a = try await PostgresTestStores.open(database: database)
        let b = try await PostgresTestStores.open(database: database)
        let id = try await a.register(SubscriberRegistration(proto: "apns", token: String(repeating: "b", count: 64)), now: 1_700_000_000).subscriber.id
        for _ in 0..<40 {
            _ = try await a.enqueue(.unicast(id), notification: PublishedEvent(event: "e"), now: 1_700_000_000)
        }
        let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for (store, owner) in [(a, "node-a"), (b, "node-b")] {
                group.addTask {
                    var ids: [Int64] = []
                    while true {
                        let jobs = try await store.claimJobs(limit: 3, lease: Lease(owner: owner, expiresAt: 10_000), nowMillis: 1_000)
                        if jobs.isEmpty { return ids }
                        ids += jobs.map(\.id)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let all = claimed.flatMap { $0 }
        #expect(all.count == 40)
        #expect(Set(all).count == 40)
        try await a.close()
        try await b.close()
    }

    @Test("the store answers unavailable while the database is away, and recovers when it is back")
    func recoversFromAnOutage() async throws {
        // A server of its own, stopped and removed at exit.
        let server = try await PostgresTestServer.start()
        let store = try await PostgresTestStores.open(on: server) { $0.acquireTimeout = .seconds(1) }
        try await store.ping()
        try await server.stop()
        await #expect(throws: StoreError.unavailable) { try await store.ping() }
        await #expect(throws: StoreError.unavailable) {
            _ = try await store.register(SubscriberRegistration(proto: "apns", token: String(repeating: "c", count: 64)), now: 1)
        }
        try await server.restart()
        let deadline = ContinuousClock.now + .seconds(30)
        var healthy = false
        while ContinuousClock.now < deadline, !healthy {
            healthy = (try? await store.ping()) != nil
            if !healthy { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(healthy)
        _ = try await store.register(SubscriberRegistration(proto: "apns", token: String(repeating: "c", count: 64)), now: 1)
        try await store.close()
    }

    @Test("the store's clock reads the database's time")
    func clockIsTheDatabases() async throws {
        let store = try await PostgresTestStores.open()
        // Same machine: the database's clock and the system's agree within the measurement.
        let difference = store.clock.nowMillis() - WallClock.system.nowMillis()
        #expect(abs(difference) < 1_000)
        try await store.close()
    }

    /// Waits until `listener`'s notification listener has subscribed.
    private func waitUntilListening(_ listener: PostgresStore) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !listener.isListening {
            guard ContinuousClock.now < deadline else {
                Issue.record("the listener never subscribed")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
