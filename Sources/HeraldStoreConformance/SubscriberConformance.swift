import HeraldCore
import HeraldStore
import Testing

/// `SubscriberStore`: registration, lookup, update, deletion and badges (§3.1, §4.2–4.5, §7).
public enum SubscriberConformance {
    /// register creates a subscriber with a fresh id, found by id and by (proto, identity)
    public static func registerCreates(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let fields = SubscriberFields(lang: "fr", badge: "0")
            let (subscriber, created) = try await store.register(apns(1, fields: fields), now: TestTime.t0)
            #expect(created)
            #expect(subscriber.id.rawValue.utf8.count == 11)
            #expect(subscriber.id.rawValue.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
            })
            #expect(subscriber.proto == "apns")
            #expect(subscriber.token == apns(1).token)
            #expect(subscriber.fields == fields)
            #expect(subscriber.created == TestTime.t0)
            #expect(subscriber.updated == TestTime.t0)
            #expect(subscriber.failures == 0)
            #expect(try await store.subscriber(subscriber.id) == subscriber)
            #expect(try await store.subscriber(proto: "apns", identity: apns(1).identity) == subscriber)
            #expect(try await store.subscriber(proto: "gcm", identity: apns(1).identity) == nil)
            #expect(try await store.subscriber(proto: "apns", identity: apns(3).identity) == nil)

            let other = try await store.register(apns(2), now: TestTime.t0)
            #expect(other.created)
            #expect(other.subscriber.id != subscriber.id)
        }
    }

    /// registerMany registers and subscribes in one call, idempotently
    public static func registerManyRegistersAndSubscribes(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let existing = try await store.register(apns(1, fields: SubscriberFields(lang: "fr")), now: TestTime.t0)
            let event = try #require(EventName("bulk"))
            let ids = try await store.registerMany((0..<300).map { apns($0) }, subscribingTo: event, now: TestTime.t0 + 10)
            #expect(ids.count == 300)
            #expect(Set(ids).count == 300)
            #expect(ids[1] == existing.subscriber.id, "an existing (proto, token) keeps its id")
            #expect(try await store.subscriber(ids[1])?.fields.lang == "fr")
            #expect(try await store.statistics(of: event)?.subscribers == 300)
            let again = try await store.registerMany([apns(5), apns(300)], subscribingTo: nil, now: TestTime.t0 + 20)
            #expect(again[0] == ids[5])
            #expect(try await store.counts().subscribers == 301)
            #expect(try await store.counts().subscriptions == 300)
        }
    }

    /// register is idempotent: same id, created kept, fields merged, failures reset
    public static func registerIsIdempotent(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let first = try await store.register(apns(1, fields: SubscriberFields(lang: "fr", badge: "3", category: "news")), now: TestTime.t0)
            let id = first.subscriber.id
            _ = try await store.record(
                [DeliveryRecord(subscriberID: id, proto: "apns", token: first.subscriber.token, statisticsEvent: nil,
                                effect: .subscriberFailure(reason: "DeviceTokenNotForTopic", status: 400))],
                maxFailures: 5, now: TestTime.t0
            )
            #expect(try await store.subscriber(id)?.failures == 1)

            let again = try await store.register(apns(1, fields: SubscriberFields(lang: "en", version: "17.1")), now: TestTime.t0 + 60)
            #expect(!again.created)
            #expect(again.subscriber.id == id)
            #expect(again.subscriber.created == TestTime.t0)
            #expect(again.subscriber.updated == TestTime.t0 + 60)
            #expect(again.subscriber.failures == 0)
            #expect(again.subscriber.fields == SubscriberFields(lang: "en", badge: "3", version: "17.1", category: "news"))
            #expect(try await store.subscriber(id) == again.subscriber)
            #expect(try await store.counts().subscribers == 1)
        }
    }

    /// register matches by (proto, identity) and replaces the token
    public static func registerReplacesTokenOfSameIdentity(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let endpoint = "https://push.example.net/send/abc"
            let first = try await store.register(
                SubscriberRegistration(proto: "webpush", token: #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"A","auth":"B"}}"#, identity: endpoint),
                now: TestTime.t0
            )
            let newToken = #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"C","auth":"D"}}"#
            let second = try await store.register(SubscriberRegistration(proto: "webpush", token: newToken, identity: endpoint), now: TestTime.t0 + 1)
            #expect(!second.created)
            #expect(second.subscriber.id == first.subscriber.id)
            #expect(second.subscriber.token == newToken)
            #expect(try await store.subscriber(first.subscriber.id)?.token == newToken)

            // The same token under another provider name is another subscriber.
            let otherProto = try await store.register(SubscriberRegistration(proto: "webpush-2", token: newToken, identity: endpoint), now: TestTime.t0)
            #expect(otherProto.created)
            #expect(otherProto.subscriber.id != first.subscriber.id)
            #expect(try await store.counts().subscribers == 2)
        }
    }

    /// a badge given with a registration replaces the stored one, of a new or a known subscriber
    public static func registerStoresAGivenBadge(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let first = try await store.register(apns(1, fields: SubscriberFields(badge: "4")), now: TestTime.t0)
            #expect(try await store.subscriber(first.subscriber.id)?.fields.badge == "4")
            let again = try await store.register(apns(1, fields: SubscriberFields(badge: "9")), now: TestTime.t0 + 1)
            #expect(again.subscriber.fields.badge == "9")
            #expect(try await store.subscriber(first.subscriber.id)?.fields.badge == "9")
            let without = try await store.register(apns(1), now: TestTime.t0 + 2)
            #expect(without.subscriber.fields.badge == "9", "a registration without a badge keeps it")
        }
    }

    /// the same identity registered many times at once is one subscriber, created once
    public static func concurrentRegistrationsOfOneIdentity(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let results = try await withThrowingTaskGroup(of: (Subscriber, Bool).self) { group in
                for n in 0..<8 {
                    group.addTask { try await store.register(apns(7, fields: SubscriberFields(lang: "l\(n)")), now: TestTime.t0) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter(\.1).count == 1, "exactly one registration created it")
            #expect(Set(results.map(\.0.id)).count == 1)
            #expect(try await store.counts().subscribers == 1)
        }
    }

    /// many registrations at once, new and known identities, some repeated, some with badges, each answered as if alone
    ///
    /// Concurrent registrations may share one commit (a group commit): each caller must still get
    /// its own subscriber, `created` once per new identity, and what it gave stored.
    public static func concurrentRegistrationsAnswerEachCaller(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            var known: [Int: SubscriberID] = [:]
            for n in 0..<40 { known[n] = try await store.register(apns(n, fields: SubscriberFields(lang: "fr")), now: TestTime.t0).subscriber.id }
            // 40 known identities refreshed, 80 new ones, and 20 of the new ones three times over.
            let registrations: [SubscriberRegistration] =
                (0..<40).map { apns($0, fields: SubscriberFields(lang: "de", badge: $0 % 2 == 0 ? "\($0)" : nil)) }
                + (100..<180).map { apns($0, fields: SubscriberFields(lang: "it", badge: $0 % 3 == 0 ? "\($0)" : nil)) }
                + (200..<240).map { apns(100 + $0 % 20, fields: SubscriberFields(lang: "it")) }
            let answers = try await withThrowingTaskGroup(of: (Int, Subscriber, Bool).self) { group in
                for (index, registration) in registrations.enumerated() {
                    group.addTask {
                        let answer = try await store.register(registration, now: TestTime.t0 + 10)
                        return (index, answer.subscriber, answer.created)
                    }
                }
                var answers: [Int: (Subscriber, Bool)] = [:]
                for try await (index, subscriber, created) in group { answers[index] = (subscriber, created) }
                return answers
            }
            #expect(answers.count == registrations.count)
            var idsByToken: [String: Set<SubscriberID>] = [:]
            var createdByToken: [String: Int] = [:]
            for (index, registration) in registrations.enumerated() {
                let (subscriber, created) = try #require(answers[index])
                #expect(subscriber.token == registration.token && subscriber.proto == "apns")
                #expect(subscriber.fields.lang == registration.fields.lang)
                if let badge = registration.fields.badge { #expect(subscriber.fields.badge == badge) }
                idsByToken[registration.token, default: []].insert(subscriber.id)
                createdByToken[registration.token, default: 0] += created ? 1 : 0
            }
            for n in 0..<40 {
                let id = try #require(known[n])
                #expect(idsByToken[apns(n).token] == [id], "a known identity keeps its id")
                #expect(createdByToken[apns(n).token] == 0)
                let stored = try #require(try await store.subscriber(id))
                #expect(stored.fields.lang == "de" && stored.updated == TestTime.t0 + 10)
                #expect(stored.fields.badge == (n % 2 == 0 ? "\(n)" : nil))
            }
            for n in 100..<180 {
                let ids = try #require(idsByToken[apns(n).token])
                #expect(ids.count == 1, "one subscriber per identity")
                #expect(createdByToken[apns(n).token] == 1, "created once")
                let id = try #require(ids.first)
                let stored = try #require(try await store.subscriber(id))
                #expect(stored.token == apns(n).token && stored.fields.lang == "it")
                if n % 3 == 0 { #expect(stored.fields.badge == "\(n)") }
            }
            #expect(try await store.counts().subscribers == 120)
        }
    }

    /// unknown ids are not found
    public static func unknownSubscriber(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let unknown = SubscriberID(rawValue: "invalidid")
            #expect(try await store.subscriber(unknown) == nil)
            #expect(try await store.updateSubscriber(unknown, fields: SubscriberFields(lang: "us"), now: TestTime.t0) == false)
            #expect(try await store.deleteSubscriber(unknown) == false)
            // Odd characters in an id from a URL must not break queries.
            #expect(try await store.subscriber(SubscriberID(rawValue: #"a"b'c\d%_"#)) == nil)
        }
    }

    /// update merges fields, sets updated and resets the failure counter
    public static func updateSubscriber(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let (subscriber, _) = try await store.register(apns(1, fields: SubscriberFields(lang: "fr", category: "c")), now: TestTime.t0)
            _ = try await store.record(
                [DeliveryRecord(subscriberID: subscriber.id, proto: "apns", token: subscriber.token, statisticsEvent: nil,
                                effect: .subscriberFailure(reason: "x", status: nil))],
                maxFailures: 5, now: TestTime.t0
            )
            #expect(try await store.updateSubscriber(subscriber.id, fields: SubscriberFields(lang: "us", badge: "5"), now: TestTime.t0 + 9))
            let stored = try #require(try await store.subscriber(subscriber.id))
            #expect(stored.fields == SubscriberFields(lang: "us", badge: "5", category: "c"))
            #expect(stored.updated == TestTime.t0 + 9)
            #expect(stored.created == TestTime.t0)
            #expect(stored.failures == 0)
            #expect(stored.token == subscriber.token)

            // An empty update is a valid ping.
            #expect(try await store.updateSubscriber(subscriber.id, fields: SubscriberFields(), now: TestTime.t0 + 10))
            #expect(try await store.subscriber(subscriber.id)?.updated == TestTime.t0 + 10)
            #expect(try await store.subscriber(subscriber.id)?.fields == stored.fields)
        }
    }

    /// delete cascades: subscriptions, emptied events, unicast statistics, retries, broadcast statistics
    public static func deleteCascades(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 2)
            let (gone, kept) = (ids[0], ids[1])
            _ = try await store.subscribe(gone, to: event("solo"), ignoreMessage: false, now: TestTime.t0)
            _ = try await store.subscribe(gone, to: event("shared"), ignoreMessage: true, now: TestTime.t0)
            _ = try await store.subscribe(kept, to: event("shared"), ignoreMessage: false, now: TestTime.t0)
            #expect(try await store.enqueue(.unicast(gone), notification: sampleNotification(), now: TestTime.t0) != .unknownSubscriber)
            #expect(try await store.enqueue(.unicast(kept), notification: sampleNotification(), now: TestTime.t0) != .unknownSubscriber)
            #expect(try await store.enqueue(.broadcast, notification: sampleNotification(), now: TestTime.t0) != .noAudience)
            try await store.scheduleRetries([retry(gone, dueAt: 5), retry(kept, dueAt: 6)])

            #expect(try await store.deleteSubscriber(gone))
            #expect(try await store.subscriber(gone) == nil)
            #expect(try await store.subscriptions(of: gone) == nil)
            #expect(try await store.eventNames() == [event("shared")])
            #expect(try await store.statistics(of: event("solo")) == nil)
            #expect(try await store.statistics(of: event("shared"))?.subscribers == 1)
            #expect(try await store.statistics(of: .unicast(gone)) == nil)
            #expect(try await store.statistics(of: .unicast(kept)) != nil)
            #expect(try await store.statistics(of: .broadcast)?.subscribers == 1)
            #expect(try await store.backlog().retries == 1)
            #expect(try await store.deleteSubscriber(gone) == false)

            // The last subscriber takes the broadcast statistics with it (§14.2).
            #expect(try await store.deleteSubscriber(kept))
            #expect(try await store.statistics(of: .broadcast) == nil)
            let counts = try await store.counts()
            #expect(counts.subscribers == 0)
            #expect(counts.subscriptions == 0)
            #expect(counts.events == 0)
            #expect(counts.retries == 0)
        }
    }

    /// incrementBadges: absent → 1, 3 → 4, abc → 1; returns the old values
    public static func incrementBadges(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let absent = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            let three = try await store.register(apns(2, fields: SubscriberFields(badge: "3")), now: TestTime.t0).subscriber.id
            let text = try await store.register(apns(3, fields: SubscriberFields(badge: "abc")), now: TestTime.t0).subscriber.id
            let untouched = try await store.register(apns(4, fields: SubscriberFields(badge: "9")), now: TestTime.t0).subscriber.id
            let unknown = SubscriberID(rawValue: "nobody")

            let before = try await store.incrementBadges(expecting: [
                BadgeExpectation(id: absent, storedBadge: nil), BadgeExpectation(id: three, storedBadge: "3"),
                BadgeExpectation(id: text, storedBadge: "abc"), BadgeExpectation(id: unknown, storedBadge: nil),
            ])
            #expect(before == [.incremented(from: nil), .incremented(from: "3"), .incremented(from: "abc"), .subscriberGone])

            #expect(try await store.subscriber(absent)?.fields.badge == "1")
            #expect(try await store.subscriber(three)?.fields.badge == "4")
            #expect(try await store.subscriber(text)?.fields.badge == "1")
            #expect(try await store.subscriber(untouched)?.fields.badge == "9")

            let second = try await store.incrementBadges(expecting: [BadgeExpectation(id: three, storedBadge: "4")])
            #expect(second == [.incremented(from: "4")])
            #expect(try await store.subscriber(three)?.fields.badge == "5")
        }
    }

    /// incrementBadges matches stored badges byte for byte: empty, non-ASCII
    public static func incrementBadgesOddText(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            for (index, badge) in ["", "zwölf", "7"].enumerated() {
                let id = try await store.register(apns(index, fields: SubscriberFields(badge: badge)), now: TestTime.t0).subscriber.id
                let stored = try await store.subscriber(id)?.fields.badge
                #expect(try await store.incrementBadges(expecting: [BadgeExpectation(id: id, storedBadge: stored)]) == [.incremented(from: stored)])
                #expect(try await store.subscriber(id)?.fields.badge == BadgeLogic.incrementedStoredBadge(stored))
                // A longer expectation with the same prefix must not match.
                let next = try await store.subscriber(id)?.fields.badge
                #expect(try await store.incrementBadges(expecting: [BadgeExpectation(id: id, storedBadge: (next ?? "") + "0")]) == [.incremented(from: next)])
            }
        }
    }

    /// incrementBadges(expecting:): a badge still as read is incremented from it; a changed one from the stored value
    public static func incrementBadgesExpecting(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let asRead = try await store.register(apns(1, fields: SubscriberFields(badge: "3")), now: TestTime.t0).subscriber.id
            let absent = try await store.register(apns(2), now: TestTime.t0).subscriber.id
            let changed = try await store.register(apns(3, fields: SubscriberFields(badge: "7")), now: TestTime.t0).subscriber.id
            let reset = try await store.register(apns(4), now: TestTime.t0).subscriber.id
            let unknown = SubscriberID(rawValue: "nobody")

            // In this order, so that the answer's order is checked too.
            let before = try await store.incrementBadges(expecting: [
                BadgeExpectation(id: asRead, storedBadge: "3"),
                BadgeExpectation(id: absent, storedBadge: nil),
                BadgeExpectation(id: changed, storedBadge: "2"),  // stored is 7
                BadgeExpectation(id: reset, storedBadge: "5"),  // stored is absent
                BadgeExpectation(id: unknown, storedBadge: "1"),
            ])
            #expect(before == [.incremented(from: "3"), .incremented(from: nil), .incremented(from: "7"), .incremented(from: nil), .subscriberGone])

            #expect(try await store.subscriber(asRead)?.fields.badge == "4")
            #expect(try await store.subscriber(absent)?.fields.badge == "1")
            #expect(try await store.subscriber(changed)?.fields.badge == "8")
            #expect(try await store.subscriber(reset)?.fields.badge == "1")
            #expect(try await store.incrementBadges(expecting: []).isEmpty)
            // Listed twice and as read: incremented once.
            let twice = try await store.incrementBadges(expecting: [
                BadgeExpectation(id: asRead, storedBadge: "4"), BadgeExpectation(id: asRead, storedBadge: "4"),
            ])
            #expect(twice == [.incremented(from: "4"), .incremented(from: "4")])
            #expect(try await store.subscriber(asRead)?.fields.badge == "5")
            // Listed twice without a badge: incremented once too.
            let fresh = try await store.register(apns(5), now: TestTime.t0).subscriber.id
            let freshTwice = try await store.incrementBadges(expecting: [
                BadgeExpectation(id: fresh, storedBadge: nil), BadgeExpectation(id: fresh, storedBadge: nil),
            ])
            #expect(freshTwice == [.incremented(from: nil), .incremented(from: nil)])
            #expect(try await store.subscriber(fresh)?.fields.badge == "1")
        }
    }

    /// incrementBadges handles a whole page in one call
    public static func incrementBadgesPage(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let ids = try await registerMany(store, count: 500)
            let before = try await store.incrementBadges(expecting: ids.map { BadgeExpectation(id: $0, storedBadge: nil) })
            #expect(before.count == 500)
            #expect(before.allSatisfy { $0 == .incremented(from: nil) })
            // Every expectation stale: the whole page is read again and incremented from what is stored.
            let after = try await store.incrementBadges(expecting: ids.map { BadgeExpectation(id: $0, storedBadge: "7") })
            #expect(after.allSatisfy { $0 == .incremented(from: "1") })
            #expect(try await store.subscriber(ids[499])?.fields.badge == "2")
        }
    }
}
