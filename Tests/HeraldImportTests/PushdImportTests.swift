import Synchronization
import Foundation
import HeraldCore
import HeraldImport
import HeraldRedis
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport
import Testing

/// `herald import pushd` (pushd-api.md §15): a database with rs/pushd's exact layout, imported
/// and then checked subscriber by subscriber through the pushd REST API of a Herald started on
/// the result.
@Suite("Import of an rs/pushd database")
struct PushdImportTests {
    @Test("imports every subscriber and subscription, skips broken records with their reasons, and is idempotent")
    func importsEverything() async throws {
        try await withPushd { redis, fixture in
            let directory = TestHerald.makeTemporaryDirectory()
            let path = directory + "/herald.db"
            let held = try await registerHeldSubscriber(path: path)

            let first = try await importPushd(redis, into: path)
            #expect(first.subscribersRead == fixture.expected.count + fixture.skipped.count)
            #expect(first.subscribersInserted == fixture.expected.count)
            #expect(first.subscribersUpdated == 0)
            for reason in Set(fixture.skipped.values) {
                let ids = fixture.skipped.filter { $0.value == reason }.map(\.key).sorted()
                #expect(first.skipped[reason] == ids.count, "\(reason)")
                #expect(first.skippedExamples[reason]?.sorted() == ids, "\(reason)")
            }
            #expect(first.subscribersSkipped == fixture.skipped.count)
            #expect(first.unknownProtocols == ["mpns": 1])
            #expect(first.unknownProtocolExamples == ["mpns": ["OldWinPhone"]])
            #expect(first.summary.contains("with proto \"mpns\", which is not a configured provider (skipped at delivery until configured) (e.g. OldWinPhone)"))
            #expect(first.subscriptions == fixture.expected.reduce(0) { $0 + $1.subscriptions.count })
            #expect(first.subscriptionsSkipped == ["invalid event name": 1, "subscriber:<id>:evts is not a sorted set": 1])
            #expect(first.events == 5)
            #expect(first.eventsSkipped == [
                "no subscriptions (or, for unicast:<id>, no such subscriber)": 4,
                "malformed statistics (created, total or last not a whole number)": 1,
                "event key is not a hash": 1,
            ])
            #expect(first.summary.contains("skipped 1: missing proto (e.g. NoProto0001)"))

            try await checkThroughAPI(directory: directory, fixture: fixture, held: held)

            // Again: the same subscribers, updated by id; nothing added, nothing lost.
            let second = try await importPushd(redis, into: path)
            #expect(second.subscribersInserted == 0)
            #expect(second.subscribersUpdated == fixture.expected.count)
            #expect(second.subscribersSkipped == fixture.skipped.count)
            #expect(second.subscriptions == first.subscriptions)
            #expect(second.events == first.events)
            try await checkThroughAPI(directory: directory, fixture: fixture, held: held)
        }
    }

    @Test("a dry run validates and counts everything and writes nothing")
    func dryRunWritesNothing() async throws {
        try await withPushd { redis, fixture in
            let path = TestHerald.makeTemporaryDirectory() + "/herald.db"
            let store = try SQLiteStore(path: path)
            let report = try await PushdImporter(
                redis: redis, store: store, options: PushdImportOptions(providerKinds: PushdFixture.providerKinds, batchSize: 7, dryRun: true)
            ).run()
            #expect(try await store.counts() == StoreCounts(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0))
            try store.close()
            #expect(report.dryRun)
            // The store is not asked, so the subscriber a Herald subscriber would shadow counts as valid.
            #expect(report.subscribersValid == fixture.expected.count + 1)
            #expect(report.subscribersInserted == 0)
            #expect(report.skipped[.missingHash] == 1)
            #expect(report.skipped[.duplicateToken] == 1)
            #expect(report.skipped[.heldInHerald] == nil)
            #expect(report.summary.hasPrefix("Dry run: nothing was written."))
        }
    }

    @Test("small batches give the same result as one large batch")
    func smallBatches() async throws {
        try await withPushd { redis, fixture in
            let directory = TestHerald.makeTemporaryDirectory()
            let path = directory + "/herald.db"
            let held = try await registerHeldSubscriber(path: path)
            let report = try await importPushd(redis, into: path, batchSize: 4)
            #expect(report.subscribersInserted == fixture.expected.count)
            #expect(report.subscribersSkipped == fixture.skipped.count)
            try await checkThroughAPI(directory: directory, fixture: fixture, held: held)
        }
    }

    @Test("a Redis that cannot be reached stops the import with a Redis error")
    func unreachableRedis() async throws {
        let port = try HeraldProcess.freePort()
        let redis = RedisConnection(url: RedisURL(host: "127.0.0.1", port: port), timeout: .seconds(2))
        let path = TestHerald.makeTemporaryDirectory() + "/herald.db"
        let store = try SQLiteStore(path: path)
        await #expect {
            _ = try await PushdImporter(redis: redis, store: store, options: PushdImportOptions(providerKinds: [:])).run()
        } throws: { error in
            (error as? PushdImportError)?.isRedisFailure == true
        }
        await redis.close()
        try store.close()
    }

    @Test("`subscribers` of the wrong type is not a pushd database")
    func wrongLayout() async throws {
        let server = try await RedisTestServer.start()
        let redis = RedisConnection(url: server.url(database: 2))
        _ = try await redis.send(["SET", "subscribers", "oops"])
        await #expect {
            _ = try await PushdImporter(redis: redis, store: nil, options: PushdImportOptions(providerKinds: [:], dryRun: true)).run()
        } throws: { error in
            (error as? PushdImportError)?.isRedisFailure == true && "\(error)".contains("not an rs/pushd database")
        }
        await redis.close()
        await server.stop()
    }

    @Test("the progress bar shows counts, rate and ETA")
    func progressBar() {
        let progress = PushdImportProgress(done: 500, total: 1_000, imported: 490, skipped: 10, elapsed: 10)
        #expect(progress.bar(width: 10) == "[#####-----]  50% 500/1000  imported 490  skipped 10  50/s  ETA 0:10")
        #expect(progress.line == "import: 500/1000  imported 490  skipped 10  50/s  ETA 0:10")
        #expect(PushdImportProgress(done: 0, total: 10, imported: 0, skipped: 0, elapsed: 0).line.hasSuffix("ETA ?"))
        #expect(PushdImportProgress(done: 1, total: 7_201, imported: 1, skipped: 0, elapsed: 1).line.hasSuffix("ETA 2:00:00"))
    }
}

// MARK: - Helpers

/// Starts a redis-server, writes the fixture in database 3 (so that `SELECT` matters) and runs `body`.
func withPushd(_ body: (RedisConnection, PushdFixture) async throws -> Void) async throws {
    let server = try await RedisTestServer.start()
    let redis = RedisConnection(url: server.url(database: 3))
    do {
        let fixture = try await PushdFixture.build(on: redis)
        try await body(redis, fixture)
    } catch {
        await redis.close()
        await server.stop()
        throw error
    }
    await redis.close()
    await server.stop()
}

/// Imports through the library into the SQLite database at `path`.
func importPushd(_ redis: RedisConnection, into path: String, batchSize: Int = 2_000) async throws -> PushdImportReport {
    let store = try SQLiteStore(path: path)
    let progress = ProgressLog()
    let report: PushdImportReport
    do {
        report = try await PushdImporter(
            redis: redis, store: store, options: PushdImportOptions(providerKinds: PushdFixture.providerKinds, batchSize: batchSize)
        ).run { progress.append($0) }
    } catch {
        try store.close()
        throw error
    }
    try store.close()
    let reports = progress.all
    #expect(reports.last?.done == report.subscribersRead)
    #expect(reports.map(\.done) == reports.map(\.done).sorted())
    return report
}

/// Registers, before any import, a Herald subscriber holding the token the fixture's `HeldByHerld` wants.
func registerHeldSubscriber(path: String) async throws -> SubscriberID {
    let store = try SQLiteStore(path: path)
    let id = try await store.register(
        SubscriberRegistration(proto: "apns", token: PushdFixture.heldToken, fields: SubscriberFields(lang: "it")), now: 1_700_000_000
    ).subscriber.id
    try store.close()
    return id
}

/// Starts Herald on the database in `directory` and checks every subscriber, subscription and
/// event statistics through the pushd REST API.
func checkThroughAPI(directory: String, fixture: PushdFixture, held: SubscriberID) async throws {
    let herald = try await TestHerald.start(yaml: "", directory: directory)
    do {
        for subscriber in fixture.expected {
            let response = try await herald.request(.GET, "/subscriber/\(subscriber.id)")
            #expect(response.status == 200, "\(subscriber.id)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? NSDictionary)
            var wanted: [String: Any] = ["proto": subscriber.proto, "token": subscriber.storedToken]
            for (key, value) in subscriber.fields { wanted[key] = PushdFixture.typed(value) }
            #expect(object == wanted as NSDictionary, "\(subscriber.id): \(response.body)")

            let subscriptions = try await herald.request(.GET, "/subscriber/\(subscriber.id)/subscriptions")
            #expect(subscriptions.status == 200)
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(subscriptions.body.utf8)) as? [String: [String: Bool]])
            #expect(listed == subscriber.subscriptions.mapValues { ["ignore_message": $0] }, "\(subscriber.id)")
        }
        for id in fixture.skipped.keys where !id.contains("/") {
            #expect(try await herald.request(.GET, "/subscriber/\(id)").status == 404, "\(id)")
        }
        // The Herald subscriber that held a pushd token is left as it was.
        let kept = try await herald.request(.GET, "/subscriber/\(held.rawValue)")
        #expect(kept.status == 200)
        #expect(kept.body.contains("\"lang\":\"it\""))
        #expect(kept.body.contains(PushdFixture.heldToken))

        let counts = fixture.subscriberCounts
        let sport = try await statistics(herald, "sport")
        #expect(sport?["created"] as? Int == 1_300_000_000)
        #expect(sport?["total"] as? Int == 154)
        #expect(sport?["last"] as? Int == 1_334_099_001)
        #expect(sport?["subscribers"] as? Int == counts["sport"])
        let all = try await statistics(herald, "all")
        // Its pushd statistics were malformed: the event dates from its earliest subscriber.
        #expect(all?["created"] as? Int == 1_320_000_000)
        #expect(all?["total"] as? Int == 0)
        #expect(all?["last"] == nil)
        #expect(all?["subscribers"] as? Int == counts["all"])
        #expect(try await statistics(herald, "news:0")?["subscribers"] as? Int == counts["news:0"])
        #expect(try await statistics(herald, "news:1")?["created"] as? Int == 1_330_000_005)
        let broadcast = try await statistics(herald, "broadcast")
        #expect(broadcast?["total"] as? Int == 2)
        #expect(broadcast?["subscribers"] as? Int == fixture.expected.count + 1)
        #expect(try await statistics(herald, "unicast:\(PushdFixture.id(1))")?["total"] as? Int == 1)
        for missing in ["forgotten", "dup-only", "held-only", "unicast:NoSuchSubscr"] {
            #expect(try await herald.request(.GET, "/event/\(missing)").status == 404, "\(missing)")
        }
        let events = try await herald.request(.GET, "/events")
        #expect(events.body == "[\"all\",\"news:0\",\"news:1\",\"sport\"]")
    } catch {
        try? await herald.stop()
        throw error
    }
    try await herald.stop()
}

/// `GET /event/:name` as a dictionary, or `nil` on 404.
func statistics(_ herald: TestHerald, _ name: String) async throws -> [String: Any]? {
    let response = try await herald.request(.GET, "/event/\(name)")
    guard response.status == 200 else { return nil }
    return try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
}

/// Progress reports as the importer gave them.
final class ProgressLog: Sendable {
    private let reports = Mutex<[PushdImportProgress]>([])

    func append(_ progress: PushdImportProgress) {
        reports.withLock { $0.append(progress) }
    }

    var all: [PushdImportProgress] { reports.withLock { $0 } }
}
