import HeraldCore
@testable import HeraldStore
@testable import HeraldStoreConformance
@testable import HeraldStorePostgres
import Logging
import PostgresNIO
import Testing

/// Badge rows on PostgreSQL exist once there is a badge (migration 6): made by the first counted
/// delivery, in the fan-out's order, and deleted with their subscriber without a foreign key.
@Suite("PostgreSQL: badge rows made at the first count")
struct PostgresBadgeRowTests {
    private static let logger = Logger(label: "herald.test")

    /// The badge rows in their physical order (`ctid`), with their badges.
    private static func badgeRows(_ store: PostgresStore) async throws -> [(id: String, badge: String?)] {
        try await store.withConnection { connection in
            try await connection.query("SELECT subscriber_id, badge FROM badges ORDER BY ctid", logger: logger)
                .map { try $0.decode((String, String?).self) }.map { (id: $0.0, badge: $0.1) }
        }
    }

    @Test("registering makes no badge row unless a badge is given; a counting page makes its members' rows, '1', appended in id order")
    func pageCreatesRowsInIDOrder() async throws {
        let (before, after, page, badged) = try await PostgresTestStores.with { store in
            // Registered in one order, their ids random to it: only the page's order is id order.
            let ids = try await store.registerMany((0..<60).map { apns($0) }, subscribingTo: event("e"), now: TestTime.t0)
            let badged = try await store.register(apns(100, fields: SubscriberFields(badge: "5")), now: TestTime.t0).subscriber.id
            _ = try await store.subscribe(badged, to: event("e"), ignoreMessage: false, now: TestTime.t0)
            #expect(Set(ids).count == 60)
            let before = try await Self.badgeRows(store)
            _ = try await store.enqueue(.subscribers(event("e")), notification: sampleNotification("e"), now: TestTime.t0)
            let job = try await claimOnlyJob(store)
            let page = try await store.audience(of: job, after: nil, limit: 100, incrementingBadgesOf: ["apns"])
            return (before, try await Self.badgeRows(store), page, badged)
        }
        #expect(before.map(\.id) == [badged.rawValue] && before.first?.badge == "5", "only the given badge has a row")
        #expect(page.count == 61 && page.allSatisfy(\.badgeIncremented), "every member counted in the page's statement")
        #expect(page.first { $0.subscriber.id == badged }?.subscriber.fields.badge == "5", "the badge before")
        #expect(after.count == 61)
        #expect(after.first { $0.id == badged.rawValue }?.badge == "6")
        let created = after.filter { $0.id != badged.rawValue }
        #expect(created.allSatisfy { $0.badge == "1" })
        #expect(created.map(\.id) == created.map(\.id).sorted(), "appended in the page's (id) order")
    }

    @Test("a page whose member's badge row another transaction creates after the page's snapshot is read again, and increments that row")
    func collidingRowIsReadAgain() async throws {
        let (page, rows, collided, waited) = try await PostgresTestStores.with { store in
            let ids = try await store.registerMany((0..<5).map { apns($0) }, subscribingTo: event("e"), now: TestTime.t0).sorted()
            let collided = ids[2]
            _ = try await store.enqueue(.subscribers(event("e")), notification: sampleNotification("e"), now: TestTime.t0)
            let job = try await claimOnlyJob(store)
            let (page, waited) = try await store.withConnection { other in
                // Another transaction creates one member's badge row and holds it uncommitted.
                try await other.query("BEGIN", logger: Self.logger)
                try await other.query("INSERT INTO badges (subscriber_id, badge) VALUES (\(collided.rawValue), '7')", logger: Self.logger)
                async let page = store.audience(of: job, after: nil, limit: 100, incrementingBadgesOf: ["apns"])
                // The page's insert of that row waits for this transaction: commit once it does.
                var waited = false
                for _ in 0..<3000 where !waited {
                    let waiting = try await other.query(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted", logger: Self.logger
                    ).map { try $0.decode(Int64.self) }.first ?? 0
                    if waiting > 0 { waited = true } else { try await Task.sleep(for: .milliseconds(10)) }
                }
                try await other.query("COMMIT", logger: Self.logger)
                return (try await page, waited)
            }
            return (page, try await Self.badgeRows(store), collided, waited)
        }
        #expect(waited, "the page's insert met the uncommitted row")
        #expect(page.count == 5 && page.allSatisfy(\.badgeIncremented))
        #expect(page.first { $0.subscriber.id == collided }?.subscriber.fields.badge == "7", "read again: the committed row's badge before")
        #expect(rows.count == 5)
        #expect(rows.first { $0.id == collided.rawValue }?.badge == "8")
        #expect(rows.filter { $0.id != collided.rawValue }.allSatisfy { $0.badge == "1" })
    }

    @Test("incrementBadges(expecting:) makes the row of a subscriber without one, and none for a deleted one")
    func incrementWithoutRow() async throws {
        let (answers, rows, present, gone) = try await PostgresTestStores.with { store in
            let present = try await store.register(apns(1), now: TestTime.t0).subscriber.id
            let gone = try await store.register(apns(2), now: TestTime.t0).subscriber.id
            #expect(try await store.deleteSubscriber(gone))
            let answers = try await store.incrementBadges(expecting: [
                BadgeExpectation(id: present, storedBadge: nil), BadgeExpectation(id: gone, storedBadge: nil),
            ])
            return (answers, try await Self.badgeRows(store), present, gone)
        }
        #expect(answers.count == 2)
        #expect(answers == [.incremented(from: nil), .subscriberGone], "no badge before; deleted: not delivered")
        #expect(rows.map(\.id) == [present.rawValue] && rows.first?.badge == "1", "\(gone)")
    }

    @Test("deleting a subscriber deletes its badge and lists it; the sweep deletes a row made after the deletion, once its age is reached")
    func leftoversAreSwept() async throws {
        let (afterDelete, listed, young, swept, afterSweep, kept) = try await PostgresTestStores.with { store in
            let a = try await store.register(apns(1, fields: SubscriberFields(badge: "3")), now: TestTime.t0).subscriber.id
            _ = try await store.register(apns(2, fields: SubscriberFields(badge: "4")), now: TestTime.t0)
            #expect(try await store.deleteSubscriber(a))
            let afterDelete = try await Self.badgeRows(store)
            return try await store.withConnection { connection in
                let listed = try await connection.query("SELECT subscriber_id FROM badge_leftovers", logger: Self.logger)
                    .map { try $0.decode(String.self) }
                // What a fan-out page whose snapshot predates the deletion writes after it.
                try await connection.query("INSERT INTO badges (subscriber_id, badge) VALUES (\(a.rawValue), '1')", logger: Self.logger)
                let young = try await PostgresStore.sweepBadgeLeftovers(olderThan: .seconds(600), on: connection, logger: Self.logger)
                let swept = try await PostgresStore.sweepBadgeLeftovers(olderThan: .zero, on: connection, logger: Self.logger)
                let afterSweep = try await Self.badgeRows(store)
                let kept = try await connection.query("SELECT count(*) FROM badge_leftovers", logger: Self.logger)
                    .map { try $0.decode(Int64.self) }.first ?? -1
                return (afterDelete, listed, young, swept, afterSweep, kept)
            }
        }
        #expect(afterDelete.map(\.badge) == ["4"], "the deleted subscriber's badge went with it")
        #expect(listed.count == 1)
        #expect(young == 0, "not yet old enough")
        #expect(swept == 1)
        #expect(afterSweep.map(\.badge) == ["4"], "the other subscriber's badge stays")
        #expect(kept == 0, "the swept entry is gone")
    }
}
