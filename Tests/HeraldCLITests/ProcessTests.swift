import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import Synchronization
import Testing

/// The `herald` binary end to end: zero-configuration start, `herald send`, SIGTERM, and `kill -9`
/// in the middle of a fan-out.
@Suite(.serialized) struct ProcessTests {
    func post(_ url: String, form: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    @Test func zeroConfigurationStartSendAndGracefulStop() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let receiver = try await WebhookReceiver.start()
        let herald = try await HeraldProcess.start([], port: port, directory: directory)
        #expect(FileManager.default.fileExists(atPath: directory + "/herald.db"), "the default database is herald.db in the working directory")
        let hook = receiver.url("/zero").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await post("http://127.0.0.1:\(port)/subscribers", form: "proto=http&token=\(hook)") == 201)

        let sent = try await HeraldProcess.run(["send", "broadcast", "msg=hello from send", "data.n=1", "--server", "http://127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let requests = try await receiver.waitFor(count: 1)
        #expect(requests.first?.body == #"{"event":"broadcast","title":{},"message":{"default":"hello from send"},"data":{"n":"1"}}"#)
        let refused = try await HeraldProcess.run(["send", "e", "foo=bar", "--server", "http://127.0.0.1:\(port)"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Invalid field: foo"))

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }

    /// Publishes to 10,000 webhook subscribers, kills the server with SIGKILL part-way through,
    /// restarts it, and checks that every subscriber got the event and that duplicates stay
    /// within the configured in-flight bound.
    @Test func crashMidFanOutLosesNothing() async throws {
        let subscribers = 10_000
        let inFlight = 500
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        // A slow receiver keeps the fan-out going long enough to be interrupted.
        let receiver = try await WebhookReceiver.start { _ in
            try? await Task.sleep(for: .milliseconds(15))
            return .ok
        }
        let config = directory + "/herald.yml"
        try """
            delivery:
              batch_size: 100
              in_flight: \(inFlight)
              concurrent_jobs: 1
              lease_duration: 2
            providers:
              http:
                kind: http
                max_concurrent: 50
            """.write(toFile: config, atomically: true, encoding: .utf8)

        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for index in stride(from: worker, to: subscribers, by: 16) {
                        let hook = receiver.url("/s/\(index)").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                        let status = try await post("http://127.0.0.1:\(port)/subscribers", form: "proto=http&token=\(hook)")
                        guard status == 201 else { throw ProcessExited(log: "registration answered \(status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await post("http://127.0.0.1:\(port)/event/broadcast", form: "msg=crash") == 204)
        try await receiver.waitFor(count: subscribers / 4, limit: .seconds(120))
        herald.signal(SIGKILL)
        _ = await herald.waitForExit()
        let beforeRestart = receiver.count
        #expect(beforeRestart < subscribers, "the crash happened mid fan-out")

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(240)) { Set(receiver.requests.map(\.path)).count == subscribers }
        let paths = receiver.requests.map(\.path)
        let distinct = Set(paths)
        #expect(distinct.count == subscribers)
        #expect(paths.count - subscribers <= inFlight, "duplicates: \(paths.count - subscribers)")
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }

    /// Issue 15's case: 5,000 webhook subscribers, the receiver answers the first 1,000 and holds the
    /// rest; one second later Herald is stopped (`kill -9`, or SIGTERM with a short grace period) and
    /// started again. No answered delivery is sent again: only those unanswered at the stop are.
    @Test(arguments: [SIGKILL, SIGTERM])
    func answeredDeliveriesAreNotSentAgainAfterAStop(signal: Int32) async throws {
        let subscribers = 5_000
        let answeredFirst = 1_000
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let gate = Gate()
        let arrivals = Mutex<[String]>([])
        let receiver = try await WebhookReceiver.start { request in
            let arrival = arrivals.withLock { $0.append(request.path); return $0.count }
            if arrival <= answeredFirst {
                try? await Task.sleep(for: .milliseconds(5))
                return .ok
            }
            await gate.wait()
            return .ok
        }
        let config = directory + "/herald.yml"
        try """
            delivery:
              shutdown_grace_period: 0.5
              lease_duration: 2
            """.write(toFile: config, atomically: true, encoding: .utf8)
        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await registerWebhooks(subscribers, receiver: receiver, port: port, concurrently: 16)
        #expect(try await post("http://127.0.0.1:\(port)/event/broadcast", form: "msg=once") == 204)
        try await eventually(limit: .seconds(120)) { arrivals.withLock { $0.count } > answeredFirst }
        try await Task.sleep(for: .seconds(1))
        herald.signal(signal)
        let status = await herald.waitForExit()
        if signal == SIGTERM { #expect(status == 0, "\(herald.log)") }
        // What the receiver answered before the stop; held requests are released only afterwards.
        let answered = Set(receiver.requests.map(\.path))
        let arrivedBeforeStop = arrivals.withLock { $0.count }
        #expect(answered.count == answeredFirst)
        gate.open()

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(180)) { Set(arrivals.withLock { $0 }).count == subscribers }
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        let all = arrivals.withLock { $0 }
        var times: [String: Int] = [:]
        for path in all { times[path, default: 0] += 1 }
        let answeredAgain = answered.filter { (times[$0] ?? 0) > 1 }
        #expect(answeredAgain.isEmpty, "\(answeredAgain.count) answered deliveries were sent again")
        let unansweredAtStop = arrivedBeforeStop - answered.count
        #expect(all.count - subscribers <= unansweredAtStop, "only what was unanswered at the stop is sent twice")
        await receiver.stop()
    }

    /// Registers `count` webhook subscribers of `receiver` (paths `/s/<n>`) through the API.
    func registerWebhooks(_ count: Int, receiver: WebhookReceiver, port: Int, concurrently workers: Int = 1) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for index in stride(from: worker, to: count, by: workers) {
                        let hook = receiver.url("/s/\(index)").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                        let status = try await post("http://127.0.0.1:\(port)/subscribers", form: "proto=http&token=\(hook)")
                        guard status == 201 else { throw ProcessExited(log: "registration answered \(status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// SIGTERM while every delivery hangs: the server gives them the grace period, exits 0, and hands
    /// its lease back, so the next start (long before the lease would have expired) delivers everything.
    @Test func sigtermWithHangingDeliveriesExitsCleanlyAndLosesNothing() async throws {
        let subscribers = 200
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let gate = Gate()
        let receiver = try await WebhookReceiver.start { _ in
            await gate.wait()
            return .ok
        }
        let config = directory + "/herald.yml"
        try """
            delivery:
              shutdown_grace_period: 0.5
              lease_duration: 600
              batch_size: 50
            providers:
              http:
                kind: http
                timeout: 600
            """.write(toFile: config, atomically: true, encoding: .utf8)
        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await registerWebhooks(subscribers, receiver: receiver, port: port)
        #expect(try await post("http://127.0.0.1:\(port)/event/broadcast", form: "msg=drain") == 204)
        // Answers are held, so count arrivals rather than answered requests.
        try await eventually(limit: .seconds(60)) { gate.arrivals >= 50 }

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0, "\(herald.log)")
        gate.open()

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(120)) { Set(receiver.requests.map(\.path)).count == subscribers }
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }

    /// `kill -9` while deliveries wait for their retry: after the restart they are delivered, with
    /// the store on SQLite and on PostgreSQL.
    @Test(arguments: [TestDatabase.sqlite, .postgres])
    func crashWithPendingRetriesDeliversThemAfterRestart(database: TestDatabase) async throws {
        let subscribers = 50
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let gate = Gate()
        let receiver = try await WebhookReceiver.start { _ in gate.isOpen ? .ok : .serviceUnavailable }
        let config = directory + "/herald.yml"
        try """
            \(try await database.serverSection())
            delivery:
              retry_delay: 0.5
              max_retry_delay: 1
              max_attempts: 100
              lease_duration: 2
            """.write(toFile: config, atomically: true, encoding: .utf8)
        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await registerWebhooks(subscribers, receiver: receiver, port: port)
        #expect(try await post("http://127.0.0.1:\(port)/event/broadcast", form: "msg=retry") == 204)
        // Every subscriber failed at least once: all of them are pending retries now.
        try await eventually(limit: .seconds(60)) { Set(receiver.requests.map(\.path)).count == subscribers }
        herald.signal(SIGKILL)
        _ = await herald.waitForExit()
        let failedBefore = receiver.count
        gate.open()

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(120)) {
            Set(receiver.requests.dropFirst(failedBefore).map(\.path)).count == subscribers
        }
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }

    /// `kill -9` while publishes are scheduled: after the restart each is fanned out once when due,
    /// and the one cancelled before the crash never is, on SQLite and on PostgreSQL.
    @Test(arguments: [TestDatabase.sqlite, .postgres])
    func scheduledPublishesSurviveAKill(database: TestDatabase) async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let receiver = try await WebhookReceiver.start()
        let config = directory + "/herald.yml"
        try "\(try await database.serverSection())\n".write(toFile: config, atomically: true, encoding: .utf8)
        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await registerWebhooks(3, receiver: receiver, port: port)
        for n in 0..<3 {
            #expect(try await post("http://127.0.0.1:\(port)/event/broadcast", form: "msg=later\(n)&delay=\(10 + n)") == 204)
        }
        var publish = HTTPClientRequest(url: "http://127.0.0.1:\(port)/event/broadcast")
        publish.method = .POST
        publish.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        publish.body = .bytes(ByteBuffer(string: "msg=cancelled&delay=10"))
        let accepted = try await HTTPClient.shared.execute(publish, timeout: .seconds(30))
        #expect(accepted.status.code == 204)
        let id = try #require(accepted.headers.first(name: "Herald-Publish-Id"))
        var cancel = HTTPClientRequest(url: "http://127.0.0.1:\(port)/publishes/\(id)")
        cancel.method = .DELETE
        #expect(try await HTTPClient.shared.execute(cancel, timeout: .seconds(30)).status.code == 204)
        herald.signal(SIGKILL)
        _ = await herald.waitForExit()
        // Ten seconds leave room for the requests above before anything is due, however loaded the machine.
        #expect(receiver.count == 0, "nothing was due before the crash")

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(60)) { receiver.count >= 9 }
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        let bodies = receiver.requests.map(\.body)
        for n in 0..<3 { #expect(bodies.filter { $0.contains("later\(n)") }.count == 3, "each subscriber once per publish") }
        #expect(!bodies.contains { $0.contains("cancelled") })
        await receiver.stop()
    }

    /// `kill -9` after raw sends were accepted (`202`) and before they were answered: after the
    /// restart every one is delivered, with the body as it was sent, on SQLite and on PostgreSQL.
    @Test(arguments: [TestDatabase.sqlite, .postgres])
    func crashBetweenAcceptingRawSendsAndDeliveringThemLosesNothing(database: TestDatabase) async throws {
        let tokens = 40
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let gate = Gate()
        let answered = PathSet()
        // The first process's requests are held until it is dead, so it never sees an answer; only
        // what the second process sends after the gate opened counts as delivered.
        let receiver = try await WebhookReceiver.start { request in
            guard gate.isOpen else {
                await gate.wait()
                return .ok
            }
            answered.insert(request.path)
            return .ok
        }
        let config = directory + "/herald.yml"
        try """
            \(try await database.serverSection())
            delivery:
              lease_duration: 2
            """.write(toFile: config, atomically: true, encoding: .utf8)
        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        let urls = (0..<tokens).map { "\"\(receiver.url("/raw/\($0)"))\"" }.joined(separator: ",")
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/send")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"proto":"http","tokens":[\#(urls)],"payload":{"kind":"raw","n":1}}"#))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        #expect(response.status.code == 202)
        #expect(String(buffer: try await response.body.collect(upTo: 1 << 16)) == #"{"queued":\#(tokens)}"#)
        try await eventually(limit: .seconds(60)) { gate.arrivals > 0 }
        herald.signal(SIGKILL)
        _ = await herald.waitForExit()
        gate.open()

        herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(120)) { answered.count == tokens }
        #expect(receiver.requests.allSatisfy { $0.body == #"{"kind":"raw","n":1}"# })
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        await receiver.stop()
    }
}

/// The paths a receiver answered, from its handlers' threads.
final class PathSet: Sendable {
    private let paths = Mutex<Set<String>>([])

    func insert(_ path: String) { _ = paths.withLock { $0.insert(path) } }

    var count: Int { paths.withLock { $0.count } }
}

/// A latch a test opens to let held webhook answers go.
final class Gate: Sendable {
    private let state = Mutex((isOpen: false, arrivals: 0))

    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Requests that reached ``wait()``.
    var arrivals: Int { state.withLock { $0.arrivals } }

    func open() { state.withLock { $0.isOpen = true } }

    func wait() async {
        state.withLock { $0.arrivals += 1 }
        while !isOpen { try? await Task.sleep(for: .milliseconds(10)) }
    }
}

/// The store a process test runs Herald on.
enum TestDatabase: String, Sendable, CustomTestStringConvertible {
    /// The default: a SQLite file in the test's directory.
    case sqlite
    /// A fresh database on the shared PostgreSQL test server.
    case postgres

    var testDescription: String { rawValue }

    /// The `server:` section that selects it (none for SQLite, Herald's default).
    func serverSection() async throws -> String {
        switch self {
        case .sqlite:
            return ""
        case .postgres:
            let server = try await PostgresTestServer.shared()
            return "server:\n  database: \"\(server.url(database: try await server.createDatabase()))\""
        }
    }
}
