import HeraldCore
import HeraldStore
import Testing

/// The `groups` audience: one provider's subscribers of several events, each once (compat.md §5.3).
public enum GroupsAudienceConformance {
    /// a groups publish is stored only when a subscriber of its provider is in a listed event, and counts in each listed event that exists
    public static func enqueueAndStatistics(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let prepared = DeliveryContent.prepared(PreparedPayload(body: #"{"aps":{}}"#, headers: ["apns-priority": "5"], label: "g1,g2"))
            let other = try await store.register(apns(1, proto: "fcm"), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(other, to: event("g1"), ignoreMessage: false, now: TestTime.t0)
            let audience = PublishAudience.groups([event("g1"), event("g2"), event("none")], proto: "apns")
            #expect(try await store.enqueue(audience, content: prepared, origin: DeliveryOrigin("choominator"), now: TestTime.t0 + 5) == .noAudience)
            #expect(try await store.backlog().jobs == 0)
            #expect(try await store.statistics(of: event("g1"))?.total == 0, "nothing is counted without a recipient")

            let id = try await store.register(apns(2), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(id, to: event("g2"), ignoreMessage: true, now: TestTime.t0)
            guard case .queued = try await store.enqueue(audience, content: prepared, origin: DeliveryOrigin("choominator"), now: TestTime.t0 + 9) else {
                Issue.record("a groups publish with a recipient was not queued")
                return
            }
            for name in ["g1", "g2"] {
                let statistics = try #require(try await store.statistics(of: event(name)))
                #expect(statistics.total == 1, "\(name)")
                #expect(statistics.last == TestTime.t0 + 9, "\(name)")
            }
            #expect(try await store.statistics(of: event("none")) == nil, "a listed event that does not exist is not created")
            #expect(audience.statisticsEvent == nil)

            let job = try await claimOnlyJob(store)
            #expect(job.audience == audience)
            #expect(job.content == prepared)
            #expect(job.origin == DeliveryOrigin("choominator"))
        }
    }

    /// a groups audience pages through the distinct subscribers of its provider in any listed event, ascending by id, none silent
    public static func distinctMembersInPages(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 9)
            var others: [SubscriberID] = []
            for n in 100..<103 { others.append(try await store.register(apns(n, proto: "fcm"), now: TestTime.t0).subscriber.id) }
            // g1: ids 0-5, g2: ids 3-7 (3-5 in both), g3: id 8 but not listed; the other provider in g1 and g2.
            for (index, id) in ids.enumerated() {
                if index <= 5 { _ = try await store.subscribe(id, to: event("g1"), ignoreMessage: index == 4, now: TestTime.t0) }
                if (3...7).contains(index) { _ = try await store.subscribe(id, to: event("g2"), ignoreMessage: false, now: TestTime.t0) }
                if index == 8 { _ = try await store.subscribe(id, to: event("g3"), ignoreMessage: false, now: TestTime.t0) }
            }
            for other in others {
                _ = try await store.subscribe(other, to: event("g1"), ignoreMessage: false, now: TestTime.t0)
                _ = try await store.subscribe(other, to: event("g2"), ignoreMessage: false, now: TestTime.t0)
            }
            let expected = Array(ids.prefix(8)).sorted()
            _ = try await store.enqueue(
                .groups([event("g2"), event("g1"), event("g2"), event("absent")], proto: "apns"), content: .event(sampleNotification()),
                origin: .pushd, now: TestTime.t0)
            let job = try await claimOnlyJob(store)
            for pageSize in [1, 2, 3, 7, 8, 100] {
                let (members, _) = try await readAudience(store, of: job, pageSize: pageSize)
                #expect(members.map(\.subscriber.id) == expected, "page size \(pageSize)")
                #expect(members.allSatisfy { !$0.silent && $0.subscriber.proto == "apns" })
            }
            let afterThird = try await store.audience(of: job, after: expected[2], limit: 2)
            #expect(afterThird.map(\.subscriber.id) == Array(expected[3...4]))

            let among = try await store.members(of: job, among: [ids[8], others[0], ids[5], ids[0], SubscriberID(rawValue: "gone")])
            #expect(among.map(\.subscriber.id) == [ids[0], ids[5]].sorted(), "only members of the audience, ascending")
        }
    }
}
