import HeraldCore
import HeraldStore
import Testing

extension PublishQueueConformance {
    /// Stored badges of every shape, for the increment rule: absent, integers (signed, zero-padded, at and past ±2^53−1, of 16 and 17 digits), and text that only looks numeric (signs alone or misplaced, a trailing newline, a non-ASCII digit).
    public static let badgeShapes: [String?] = [
        nil, "0", "3", "-3", "-0", "007", "abc", "", " 5", "5 ", "+5", "zwölf", "9007199254740990", "9007199254740991",
        "-9007199254740991", "12345678901234567", "99999999999999999999", "1234567890123456", "-1234567890123456",
        "-12345678901234567", "-", "--1", "1-", "1\n", "\u{0663}",
    ]

    /// a page read incrementing badges: members marked incremented show the badge before and now store BadgeLogic's increment of it; others keep theirs; the page stops at the part's end
    ///
    /// - Returns: how many members the store marked (a store may mark none), so that a backend's
    ///   own tests can say it takes the one-step path.
    @discardableResult
    public static func audienceIncrementingBadges(_ backend: StoreBackend) async throws -> Int {
        var marked = 0
        try await withStore(backend) { store async throws in
            var stored: [SubscriberID: String?] = [:]
            var counting: Set<SubscriberID> = []
            for (index, badge) in badgeShapes.enumerated() {
                let id = try await store.register(apns(index, fields: SubscriberFields(badge: badge)), now: TestTime.t0).subscriber.id
                stored[id] = .some(badge)
                counting.insert(id)
            }
            // A provider whose deliveries count no badge: never incremented.
            for index in 0..<3 {
                let id = try await store.register(apns(100 + index, proto: "gcm", fields: SubscriberFields(badge: "5")), now: TestTime.t0)
                    .subscriber.id
                stored[id] = .some("5")
            }
            for id in stored.keys { _ = try await store.subscribe(id, to: event("e"), ignoreMessage: false, now: TestTime.t0) }
            _ = try await store.enqueue(.subscribers(event("e")), notification: sampleNotification("e"), now: TestTime.t0)
            var job = try await claimOnlyJob(store)
            let ids = stored.keys.sorted()

            // A part of a shared publish: the page stops at its end, and nothing after it changes.
            job.end = ids[4]
            let part = try await store.audience(of: job, after: nil, limit: 100, incrementingBadgesOf: ["apns"])
            #expect(part.map(\.subscriber.id) == Array(ids[...4]))
            job.end = nil
            let page = try await store.audience(of: job, after: ids[4], limit: 100, incrementingBadgesOf: ["apns"])
            #expect(page.map(\.subscriber.id) == Array(ids[5...]))

            for member in part + page {
                let id = member.subscriber.id
                let before = stored[id]!
                #expect(member.subscriber.fields.badge == before, "the badge before, for \(before ?? "nil")")
                let now = try await store.subscriber(id)?.fields.badge
                if member.badgeIncremented {
                    marked += 1
                    #expect(counting.contains(id))
                    #expect(now == BadgeLogic.incrementedStoredBadge(before), "\(before ?? "nil") incremented")
                } else {
                    #expect(now == before, "\(before ?? "nil") untouched when not marked")
                }
            }
            // Without counting providers the page is a plain one, cut at the end.
            job.end = ids[1]
            let plain = try await store.audience(of: job, after: nil, limit: 100, incrementingBadgesOf: [])
            #expect(plain.map(\.subscriber.id) == Array(ids[...1]))
            #expect(plain.allSatisfy { !$0.badgeIncremented })
        }
        return marked
    }
}
