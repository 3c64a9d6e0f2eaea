import Foundation
import HeraldCore
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport
import Testing

/// `herald migrate` as an operator runs it: a one-machine SQLite installation with work left to
/// do, copied twice into PostgreSQL by the built binary, then served from PostgreSQL.
@Suite("herald migrate (the command)")
struct MigrateCommandTests {
    /// What the SQLite installation holds: subscribers of two events, a publish not yet fanned
    /// out, a retry, statistics, feedback and a dead letter.
    struct Installation {
        var ids: [SubscriberID] = []
        var counts = StoreCounts(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0)
        var feedback = 0
    }

    /// Builds the installation through the store's public API, as `herald serve` would have left it.
    static func makeInstallation(at path: String, receiver: WebhookReceiver) async throws -> Installation {
        let store = try SQLiteStore(path: path)
        let now = Int64(Date().timeIntervalSince1970)
        var installation = Installation()
        for n in 0..<30 {
            let fields = SubscriberFields(lang: n % 2 == 0 ? "fr" : nil, badge: n % 3 == 0 ? "\(n)" : nil)
            let registration = SubscriberRegistration(proto: "http", token: receiver.url("/s/\(n)"), fields: fields)
            installation.ids.append(try await store.register(registration, now: now - 1_000).subscriber.id)
        }
        let sport = EventName("sport")!
        let news = EventName("news")!
        for (n, id) in installation.ids.enumerated() {
            if n < 20 { _ = try await store.subscribe(id, to: sport, ignoreMessage: false, now: now - 900) }
            if n >= 10 { _ = try await store.subscribe(id, to: news, ignoreMessage: n % 2 == 0, now: now - 800) }
        }
        // Published while the server was stopping: fanned out only after the move.
        let published = try await store.enqueue(.subscribers(sport), notification: PublishedEvent(event: "sport", message: .init(["default": "goal"])), now: now)
        #expect(published != .noAudience)
        // A retry due now, of a delivery to subscriber 25.
        try await store.scheduleRetries([
            QueuedDelivery(
                subscriberID: installation.ids[25], statisticsEvent: news, notification: PublishedEvent(event: "news", message: .init(["default": "late"])),
                silent: false, badge: nil, attempts: 1, dueAt: now * 1_000, publishedAt: now, lastReason: "HTTP 503"),
        ])
        // Earlier outcomes: statistics, a failure counter, feedback and a dead letter.
        let token = { (n: Int) in receiver.url("/s/\(n)") }
        _ = try await store.record([
            DeliveryRecord(subscriberID: installation.ids[0], proto: "http", token: token(0), statisticsEvent: sport, effect: .delivered),
            DeliveryRecord(
                subscriberID: installation.ids[28], proto: "http", token: token(28), statisticsEvent: news,
                effect: .subscriberFailure(reason: "HTTP 404", status: 404)),
            DeliveryRecord(
                subscriberID: installation.ids[29], proto: "http", token: token(29), statisticsEvent: news,
                effect: .failed(reason: "Gone", status: 410),
                deadLetter: DeadLetterContent(
                    publication: Publication(
                        content: .event(PublishedEvent(event: "news", message: .init(["default": "lost"]))), statisticsEvent: news,
                        publishedAt: now - 60),
                    silent: false, badge: nil, attempts: 1)),
        ], maxFailures: 5, now: now - 30)
        try await store.appendFeedback([
            FeedbackEntry(time: now - 20, subscriberID: installation.ids[1], proto: "http", token: token(1), status: nil,
                          reason: "provider not configured", action: .skipped),
        ])
        installation.counts = try await store.counts()
        installation.feedback = try await store.feedbackCount()
        try store.close()
        return installation
    }

    @Test("migrates an SQLite installation into PostgreSQL twice (the second run copies nothing), and the PostgreSQL server delivers its pending work")
    func migratesIntoPostgres() async throws {
        let postgres = try await PostgresTestServer.shared()
        let database = postgres.url(database: try await postgres.createDatabase())
        let receiver = try await WebhookReceiver.start()
        let directory = TestHerald.makeTemporaryDirectory()
        let installation = try await Self.makeInstallation(at: directory + "/herald.db", receiver: receiver)
        #expect(installation.counts == StoreCounts(subscribers: 30, subscriptions: 40, events: 2, jobs: 1, retries: 1, deadLetters: 1))
        #expect(installation.feedback == 3)

        let arguments = ["migrate", "--from", "sqlite:\(directory)/herald.db", "--to", database, "--batch-size", "7"]
        let first = try await HeraldProcess.runCapturingOutput(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.row("subscribers", in: first.stdout) == ["30", "30", "0", "30", "ok"], "\(first.stdout)")
        #expect(Self.row("subscriptions", in: first.stdout) == ["40", "40", "0", "40", "ok"])
        #expect(Self.row("events", in: first.stdout) == ["2", "2", "0", "2", "ok"])
        #expect(Self.row("jobs", in: first.stdout) == ["1", "1", "0", "1", "ok"])
        #expect(Self.row("deliveries", in: first.stdout) == ["1", "1", "0", "1", "ok"])
        #expect(Self.row("feedback", in: first.stdout) == ["3", "3", "0", "3", "ok"])
        #expect(Self.row("dead letters", in: first.stdout) == ["1", "1", "0", "1", "ok"])
        #expect(first.stdout.contains("Verified: the destination holds every row of the source."))
        // Not a terminal: plain progress lines, the last with every row read.
        #expect(first.stderr.contains("migrate: dead letters 38/38"), "\(first.stderr)")
        #expect(!first.stderr.contains("\r"))

        // Idempotent: subscribers are written again (made equal), everything else is already there.
        let second = try await HeraldProcess.runCapturingOutput(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Self.row("jobs", in: second.stdout) == ["1", "0", "1", "1", "ok"], "\(second.stdout)")
        #expect(Self.row("deliveries", in: second.stdout) == ["1", "0", "1", "1", "ok"])
        #expect(Self.row("feedback", in: second.stdout) == ["3", "0", "3", "3", "ok"])
        #expect(Self.row("dead letters", in: second.stdout) == ["1", "0", "1", "1", "ok"])
        #expect(Self.row("subscribers", in: second.stdout)?.last == "ok")
        #expect(second.stdout.contains("Verified"))

        // Served from PostgreSQL: the data reads back through the pushd API, and the work left is done once.
        let herald = try await TestHerald.start(yaml: "server:\n  database: \(database)\nproviders:\n  http:\n    kind: http\n")
        do {
            let ids = installation.ids
            let first = try await herald.request(.GET, "/subscriber/\(ids[0].rawValue)")
            #expect(first.status == 200)
            let subscriber = try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any]
            #expect(subscriber?["lang"] as? String == "fr")
            #expect(subscriber?["badge"] as? String == "0" || subscriber?["badge"] as? Int == 0, "\(first.body)")
            #expect(subscriber?["proto"] as? String == "http")
            let subscriptions = try await herald.request(.GET, "/subscriber/\(ids[12].rawValue)/subscriptions")
            let listed = try JSONSerialization.jsonObject(with: Data(subscriptions.body.utf8)) as? [String: [String: Bool]]
            #expect(listed == ["news": ["ignore_message": true], "sport": ["ignore_message": false]])

            // The publish reaches its 20 subscribers and the retry its one, each once.
            let delivered = try await receiver.waitFor(count: 21)
            #expect(Set(delivered.map(\.path)) == Set((0..<20).map { "/s/\($0)" } + ["/s/25"]))
            try await eventually {
                let sport = try await statistics(herald, "sport")
                let news = try await statistics(herald, "news")
                return sport?["delivered"] as? Int == 21 && news?["delivered"] as? Int == 1
            }
            let sport = try await statistics(herald, "sport")
            #expect(sport?["total"] as? Int == 1)
            #expect(sport?["subscribers"] as? Int == 20)
            let news = try await statistics(herald, "news")
            #expect(news?["failed"] as? Int == 2)
            #expect(news?["subscribers"] as? Int == 20)

            let feedback = try await herald.request(.GET, "/feedback")
            #expect(feedback.status == 200)
            #expect(feedback.body.contains("Gone") && feedback.body.contains("HTTP 404") && feedback.body.contains("provider not configured"), "\(feedback.body)")
            let letters = try await herald.request(.GET, "/dead-letters")
            #expect(letters.status == 200)
            #expect(letters.body.contains(ids[29].rawValue), "\(letters.body)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(receiver.count == 21, "nothing is delivered twice")
        } catch {
            try? await herald.stop()
            await receiver.stop()
            throw error
        }
        try await herald.stop()
        await receiver.stop()
    }

    @Test("a destination that already holds another subscriber of a token is reported, and the verification fails with exit 65")
    func conflictFailsTheVerification() async throws {
        let postgres = try await PostgresTestServer.shared()
        let database = postgres.url(database: try await postgres.createDatabase())
        let receiver = try await WebhookReceiver.start()
        let directory = TestHerald.makeTemporaryDirectory()
        let installation = try await Self.makeInstallation(at: directory + "/herald.db", receiver: receiver)
        // Another installation, already moved, holds subscriber 5's webhook under an id of its own.
        let other = try SQLiteStore(path: directory + "/other.db")
        let holder = try await other.register(SubscriberRegistration(proto: "http", token: receiver.url("/s/5")), now: 1_700_000_000).subscriber.id
        try other.close()
        #expect(holder != installation.ids[5])
        let moved = try await HeraldProcess.runCapturingOutput(["migrate", "--from", "sqlite:\(directory)/other.db", "--to", database])
        #expect(moved.status == 0, "\(moved.stderr)")

        let result = try await HeraldProcess.runCapturingOutput(["migrate", "--from", "sqlite:\(directory)/herald.db", "--to", database])
        #expect(result.status == 65, "\(result.stdout)\n\(result.stderr)")
        #expect(Self.row("subscribers", in: result.stdout) == ["30", "29", "1", "30", "MISMATCH", "(expected", "29)"], "\(result.stdout)")
        #expect(Self.row("subscriptions", in: result.stdout) == ["40", "39", "1", "39", "ok"])
        #expect(Self.row("jobs", in: result.stdout) == ["1", "1", "0", "1", "ok"])
        #expect(result.stdout.contains("1 subscribers not copied: another id holds their (proto, token) in the destination (e.g. \(installation.ids[5].rawValue))"))
        #expect(result.stdout.contains("Verification failed: the destination's count differs for subscribers."))
        await receiver.stop()
    }

    @Test("bad arguments exit non-zero with one clear line naming the flag, and create nothing")
    func badArguments() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let missing = directory + "/missing.db"
        let to = "postgres://herald:secret@127.0.0.1:1/herald"

        let noSource = try await HeraldProcess.runCapturingOutput(["migrate", "--from", "sqlite:\(missing)", "--to", to])
        #expect(noSource.status == 78)
        #expect(noSource.stderr.contains("--from") && noSource.stderr.contains("no SQLite database at \(missing)"), "\(noSource.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing), "a missing source is not created")

        let fromPostgres = try await HeraldProcess.runCapturingOutput(["migrate", "--from", to, "--to", to])
        #expect(fromPostgres.status == 64)
        #expect(fromPostgres.stderr.contains("--from: expected an SQLite database"), "\(fromPostgres.stderr)")

        let toSQLite = try await HeraldProcess.runCapturingOutput(["migrate", "--from", "sqlite:\(missing)", "--to", "sqlite:\(directory)/b.db"])
        #expect(toSQLite.status == 64)
        #expect(toSQLite.stderr.contains("--to: expected a PostgreSQL URL"), "\(toSQLite.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/b.db"))

        let noDestination = try await HeraldProcess.runCapturingOutput(["migrate", "--from", "sqlite:\(missing)"])
        #expect(noDestination.status == 64)
        #expect(noDestination.stderr.contains("--to"))

        let badBatch = try await HeraldProcess.runCapturingOutput(["migrate", "--from", "sqlite:\(missing)", "--to", to, "--batch-size", "0"])
        #expect(badBatch.status == 64)
        #expect(badBatch.stderr.contains("--batch-size"))
    }

    /// The report's cells after the kind's name, or `nil` when it has no such line.
    static func row(_ kind: String, in report: String) -> [String]? {
        for line in report.split(separator: "\n") where line.hasPrefix(kind + " ") {
            let rest = line.dropFirst(kind.count)
            return rest.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        }
        return nil
    }
}
