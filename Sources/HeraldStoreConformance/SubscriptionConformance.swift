import HeraldCore
import HeraldStore
import Testing

/// `SubscriptionStore`: single and bulk subscriptions, and events living exactly as long as their subscriptions (§3.2, §4.7–4.11).
public enum SubscriptionConformance {
    /// subscribe creates the event, then overwrites the option
    public static func subscribe(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            #expect(try await store.subscriptions(of: id)?.isEmpty == true)

            #expect(try await store.subscribe(id, to: event("sport"), ignoreMessage: true, now: TestTime.t0 + 5) == .created)
            #expect(try await store.subscription(of: id, to: event("sport")) == true)
            #expect(try await store.statistics(of: event("sport")) == EventStatistics(created: TestTime.t0 + 5, subscribers: 1))

            #expect(try await store.subscribe(id, to: event("sport"), ignoreMessage: false, now: TestTime.t0 + 9) == .updated)
            #expect(try await store.subscription(of: id, to: event("sport")) == false)
            // Overwriting the option is not a new subscription: created stays.
            #expect(try await store.statistics(of: event("sport"))?.created == TestTime.t0 + 5)

            let other = try await store.register(apns(2), now: TestTime.t0).subscriber.id
            #expect(try await store.subscribe(other, to: event("sport"), ignoreMessage: true, now: TestTime.t0 + 20) == .created)
            #expect(try await store.statistics(of: event("sport")) == EventStatistics(created: TestTime.t0 + 5, subscribers: 2))
        }
    }

    /// many subscriptions at once, new and repeated, some of unknown subscribers, each answered as if alone
    ///
    /// Concurrent subscriptions may share one commit (a group commit): each caller must still get
    /// its own answer, `created` once per subscription, and an unknown subscriber none and no event.
    public static func concurrentSubscriptionsAnswerEachCaller(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 30)
            let unknown = SubscriberID(rawValue: "nobody-here")
            // Each subscriber to "a" and "b" (to "a" twice), and an unknown one to "a" and to "ghost".
            var requests: [(id: SubscriberID, event: String, ignore: Bool)] = []
            for id in ids {
                requests.append((id, "a", false))
                requests.append((id, "b", true))
                requests.append((id, "a", false))
            }
            requests.insert((unknown, "a", false), at: 10)
            requests.insert((unknown, "ghost", false), at: 50)
            let all = requests
            let answers = try await withThrowingTaskGroup(of: (Int, SubscribeResult).self) { group in
                for (index, request) in all.enumerated() {
                    group.addTask {
                        (index, try await store.subscribe(request.id, to: event(request.event), ignoreMessage: request.ignore, now: TestTime.t0))
                    }
                }
                var answers: [Int: SubscribeResult] = [:]
                for try await (index, answer) in group { answers[index] = answer }
                return answers
            }
            var created: [String: Int] = [:]
            for (index, request) in all.enumerated() {
                let answer = try #require(answers[index])
                if request.id == unknown {
                    #expect(answer == .unknownSubscriber)
                    continue
                }
                #expect(answer != .unknownSubscriber)
                if answer == .created { created["\(request.id.rawValue)/\(request.event)", default: 0] += 1 }
            }
            #expect(created.count == 60 && created.values.allSatisfy { $0 == 1 }, "each subscription created once")
            #expect(try await store.statistics(of: event("a"))?.subscribers == 30)
            #expect(try await store.statistics(of: event("b"))?.subscribers == 30)
            #expect(try await store.statistics(of: event("ghost")) == nil, "an unknown subscriber leaves no event behind")
            #expect(try await store.subscription(of: ids[3], to: event("b")) == true)
            #expect(try await store.counts().subscriptions == 60)
        }
    }

    /// subscribing an unknown subscriber leaves nothing behind
    public static func subscribeUnknown(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let unknown = SubscriberID(rawValue: "invalidid")
            #expect(try await store.subscribe(unknown, to: event("unit-test1"), ignoreMessage: false, now: TestTime.t0) == .unknownSubscriber)
            #expect(try await store.statistics(of: event("unit-test1")) == nil)
            #expect(try await store.eventNames().isEmpty)
            #expect(try await store.counts() == .empty)
            #expect(try await store.subscriptions(of: unknown) == nil)
            #expect(try await store.subscription(of: unknown, to: event("unit-test1")) == nil)
            #expect(try await store.unsubscribe(unknown, from: event("unit-test1")) == false)
            #expect(try await store.replaceSubscriptions(of: unknown, with: [(event("a"), false)], now: TestTime.t0) == false)
            #expect(try await store.counts() == .empty)
        }
    }

    /// subscriptions are listed in byte order with their options
    public static func subscriptionsSorted(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let id = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            let names = ["b", "a", "B", "_x", "-y", "a.b", "@home", "Z9", "a:b"]
            for (index, name) in names.enumerated() {
                _ = try await store.subscribe(id, to: event(name), ignoreMessage: index % 2 == 0, now: TestTime.t0)
            }
            let listed = try #require(try await store.subscriptions(of: id))
            #expect(listed.map(\.event.rawValue) == ["-y", "@home", "B", "Z9", "_x", "a", "a.b", "a:b", "b"])
            for (index, name) in names.enumerated() {
                #expect(listed.first { $0.event.rawValue == name }?.ignoreMessage == (index % 2 == 0))
            }
            #expect(try await store.subscription(of: id, to: event("nope")) == nil)
        }
    }

    /// unsubscribe deletes the event with its last subscription
    public static func unsubscribe(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            _ = try await store.subscribe(ids[0], to: event("e"), ignoreMessage: false, now: TestTime.t0)
            _ = try await store.subscribe(ids[1], to: event("e"), ignoreMessage: false, now: TestTime.t0)

            #expect(try await store.unsubscribe(ids[0], from: event("e")))
            #expect(try await store.subscription(of: ids[0], to: event("e")) == nil)
            #expect(try await store.statistics(of: event("e"))?.subscribers == 1)

            #expect(try await store.unsubscribe(ids[1], from: event("e")))
            #expect(try await store.statistics(of: event("e")) == nil)
            #expect(try await store.eventNames().isEmpty)
            // Not subscribed (any more) is still a success for a known subscriber.
            #expect(try await store.unsubscribe(ids[1], from: event("e")))
            #expect(try await store.counts().events == 0)
        }
    }

    /// replaceSubscriptions makes the set equal, deleting emptied events
    public static func replaceSubscriptions(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            let (id, other) = (ids[0], ids[1])
            #expect(try await store.replaceSubscriptions(of: id, with: [(event("sport"), false), (event("music"), true), (event("news"), false)], now: TestTime.t0))
            _ = try await store.subscribe(other, to: event("news"), ignoreMessage: false, now: TestTime.t0 + 1)

            #expect(try await store.replaceSubscriptions(of: id, with: [(event("sport"), true), (event("weather"), false), (event("weather"), true)], now: TestTime.t0 + 10))
            let listed = try #require(try await store.subscriptions(of: id))
            #expect(listed.map(\.event.rawValue) == ["sport", "weather"])
            #expect(listed.map(\.ignoreMessage) == [true, true])
            // music lost its only subscriber; news keeps the other one.
            #expect(try await store.statistics(of: event("music")) == nil)
            #expect(try await store.statistics(of: event("news"))?.subscribers == 1)
            #expect(try await store.statistics(of: event("sport"))?.created == TestTime.t0)
            #expect(try await store.statistics(of: event("weather"))?.created == TestTime.t0 + 10)
            #expect(try await store.eventNames().map(\.rawValue) == ["news", "sport", "weather"])

            // Unchanged input is a success and changes nothing.
            #expect(try await store.replaceSubscriptions(of: id, with: [(event("sport"), true), (event("weather"), true)], now: TestTime.t0 + 20))
            #expect(try await store.subscriptions(of: id)?.count == 2)

            #expect(try await store.replaceSubscriptions(of: id, with: [], now: TestTime.t0 + 30))
            #expect(try await store.subscriptions(of: id)?.isEmpty == true)
            #expect(try await store.eventNames().map(\.rawValue) == ["news"])
            #expect(try await store.counts().subscriptions == 1)
        }
    }
}
