import HeraldCore
import HeraldStore
@testable import HeraldStoreConformance
@testable import HeraldStorePostgres
import Logging
import PostgresNIO
import Testing

/// An event's pages through the store, for an audience that is nearly every subscriber (whose
/// later pages merge ranges) and one that is a fifth of them (key lookups throughout): the same
/// members, once each and in order, with their badges incremented once.
@Suite("PostgreSQL: audience pages by either join")
struct PostgresAudiencePageJoinTests {
    private static let pageSize = 100

    @Test("a dense audience is read by merging ranges after its first page, a sparse one by key lookups, with the same results")
    func bothJoinsReadTheAudience() async throws {
        try await PostgresTestStores.with { store in
            let logger = Logger(label: "herald.test.joins")
            try await store.withConnection { connection in
                try await connection.query("""
                    INSERT INTO subscribers (id, proto, token, identity, created, updated)
                    SELECT substr(md5(i::text), 1, 11), 'apns', md5(i::text), md5(i::text), 0, 0 FROM generate_series(1, 2000) AS i
                    """, logger: logger)
                try await connection.query("INSERT INTO badges (subscriber_id, badge) SELECT id, '0' FROM subscribers", logger: logger)
                try await connection.query(
                    "INSERT INTO subscriptions (event, subscriber_id, ignore_message) SELECT 'dense', id, false FROM subscribers", logger: logger)
                try await connection.query("""
                    INSERT INTO subscriptions (event, subscriber_id, ignore_message)
                    SELECT 'sparse', substr(md5(i::text), 1, 11), i % 10 = 0 FROM generate_series(5, 2000, 5) AS i
                    """, logger: logger)
            }
            for (name, expectedJoin) in [("dense", AudiencePageJoin.rangeMerge), ("sparse", .keyLookups)] {
                // Every subscriber of the sparse event is in the dense one: badges start at 0 for each.
                try await store.withConnection { try await $0.query("UPDATE badges SET badge = '0'", logger: logger) }
                let expected = try await Self.audience(of: name, in: store)
                #expect(expected.count == (name == "dense" ? 2000 : 400))

                // Pages that increment badges, to the audience's end.
                let counting = Self.job(1, name)
                let incremented = try await Self.readAll(counting) { try await store.audience(of: counting, after: $0, limit: Self.pageSize, incrementingBadgesOf: ["apns"]) }
                #expect(incremented.map(\.subscriber.id.rawValue) == expected.map(\.id), "\(name)")
                #expect(incremented.allSatisfy { $0.badgeIncremented && $0.subscriber.fields.badge == "0" }, "\(name)")
                #expect(incremented.map(\.silent) == expected.map(\.silent), "\(name)")
                #expect(store.pageJoins.withLock { $0.join(of: counting.id) } == expectedJoin, "\(name)")
                let badges = try await store.withConnection { connection in
                    try await connection.query(
                        "SELECT b.badge FROM badges AS b JOIN subscriptions AS s ON s.subscriber_id = b.subscriber_id WHERE s.event = \(name)",
                        logger: logger
                    ).collect().map { try $0.decode(String.self) }
                }
                #expect(badges.count == expected.count && badges.allSatisfy { $0 == "1" }, "\(name)")

                // Plain pages, and a part that ends halfway, incrementing again.
                let plain = Self.job(2, name)
                let read = try await Self.readAll(plain) { try await store.audience(of: plain, after: $0, limit: Self.pageSize) }
                #expect(read.map(\.subscriber.id.rawValue) == expected.map(\.id), "\(name)")
                #expect(read.allSatisfy { !$0.badgeIncremented && $0.subscriber.fields.badge == "1" }, "\(name)")
                #expect(store.pageJoins.withLock { $0.join(of: plain.id) } == expectedJoin, "\(name)")
                let end = expected[expected.count / 2 - 1].id
                let part = Self.job(3, name, end: SubscriberID(rawValue: end))
                let firstHalf = try await Self.readAll(part) { try await store.audience(of: part, after: $0, limit: Self.pageSize, incrementingBadgesOf: ["apns"]) }
                #expect(firstHalf.map(\.subscriber.id.rawValue) == expected.prefix(expected.count / 2).map(\.id), "\(name)")
                #expect(firstHalf.allSatisfy { $0.badgeIncremented && $0.subscriber.fields.badge == "1" }, "\(name)")
            }
        }
    }

    /// A job of the subscribers of `name`, with an id of its own per event and `number`.
    private static func job(_ number: Int64, _ name: String, end: SubscriberID? = nil) -> PublishJob {
        PublishJob(
            id: number * 10 + (name == "dense" ? 1 : 2), audience: .subscribers(event(name)), content: .event(sampleNotification()),
            publishedAt: TestTime.t0, end: end)
    }

    /// Reads pages with `page` from the start until one comes back short.
    private static func readAll(_ job: PublishJob, _ page: (SubscriberID?) async throws -> [AudienceMember]) async throws -> [AudienceMember] {
        var members: [AudienceMember] = []
        var cursor: SubscriberID?
        while true {
            let next = try await page(cursor)
            members += next
            guard next.count == pageSize, let last = next.last else { return members }
            cursor = last.subscriber.id
        }
    }

    /// The event's subscriptions as stored, in id order.
    private static func audience(of name: String, in store: PostgresStore) async throws -> [(id: String, silent: Bool)] {
        try await store.withConnection { connection in
            try await connection.query(
                "SELECT subscriber_id, ignore_message FROM subscriptions WHERE event = \(name) ORDER BY subscriber_id",
                logger: Logger(label: "herald.test.joins")
            ).collect().map { try $0.decode((String, Bool).self) }.map { (id: $0.0, silent: $0.1) }
        }
    }
}
