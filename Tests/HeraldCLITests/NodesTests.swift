import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// Issue 18: several `herald serve` processes on one PostgreSQL database, as a deployment runs them.
///
/// Each test makes a fresh database on the shared test server (the restart test has a server of its
/// own), starts its nodes on it with nothing but `server.database`, and talks to them over HTTP.
@Suite(.serialized) struct NodesTests {
    /// A configuration file in a fresh directory: the database, short leases, a webhook provider.
    func configuration(database url: String, extra: String = "") throws -> (directory: String, file: String) {
        let directory = TestHerald.makeTemporaryDirectory()
        let file = directory + "/herald.yml"
        try """
            server:
              database: \(url)
            delivery:
              batch_size: 100
              in_flight: 200
              concurrent_jobs: 1
              lease_duration: 2
            providers:
              http:
                kind: http
                max_concurrent: 20
            \(extra)
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return (directory, file)
    }

    /// Starts `count` nodes on `file` at once; each is ready (`/status` 204) when this returns.
    func startNodes(_ count: Int, file: String, directory: String) async throws -> [HeraldProcess] {
        let ports = try (0..<count).map { _ in try HeraldProcess.freePort() }
        return try await withThrowingTaskGroup(of: HeraldProcess.self) { group in
            for port in ports {
                group.addTask { try await HeraldProcess.start(["--config", file], port: port, directory: directory) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    func stop(_ nodes: [HeraldProcess]) async {
        for node in nodes { node.signal(SIGKILL) }
        for node in nodes { _ = await node.waitForExit() }
    }

    func request(_ method: HTTPMethod, _ url: String, form: String? = nil) async throws -> (status: Int, body: String, retryAfter: String?) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 22))
        return (Int(response.status.code), body, response.headers.first(name: "Retry-After"))
    }

    /// Registers a webhook subscriber for each path through `node`, subscribed to `event`; returns their ids.
    func registerHooks(_ paths: [String], receiver: WebhookReceiver, event: String, through node: HeraldProcess) async throws -> [String] {
        let base = "http://127.0.0.1:\(node.port)"
        return try await withThrowingTaskGroup(of: [String].self) { group in
            let workers = 8
            for worker in 0..<workers {
                group.addTask {
                    var ids: [String] = []
                    for index in stride(from: worker, to: paths.count, by: workers) {
                        let hook = receiver.url(paths[index]).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                        let answer = try await request(.POST, base + "/subscribers", form: "proto=http&token=\(hook)")
                        guard answer.status == 201,
                            let id = (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["id"] as? String
                        else { throw ProcessExited(log: "registration answered \(answer.status) \(answer.body)") }
                        let subscribed = try await request(.POST, base + "/subscriber/\(id)/subscriptions/\(event)")
                        guard subscribed.status == 201 else { throw ProcessExited(log: "subscription answered \(subscribed.status)") }
                        ids.append(id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// The `herald_deliveries_total` of `provider` with `outcome` in `node`'s `/metrics` (0 when absent).
    func deliveries(of node: HeraldProcess, provider: String = "http", outcome: String = "delivered") async throws -> Int {
        let metrics = try await request(.GET, "http://127.0.0.1:\(node.port)/metrics").body
        for line in metrics.split(separator: "\n") where line.hasPrefix("herald_deliveries_total{") {
            guard line.contains("provider=\"\(provider)\""), line.contains("outcome=\"\(outcome)\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            return Int(value)
        }
        return 0
    }

    @Test func threeNodesStartTogetherOnAnEmptyDatabaseAndAnswerAlike() async throws {
        let server = try await PostgresTestServer.shared()
        let setup = try configuration(database: server.url(database: try await server.createDatabase()))
        let nodes = try await startNodes(3, file: setup.file, directory: setup.directory)
        do {
            let created = try await request(.POST, "http://127.0.0.1:\(nodes[0].port)/subscribers", form: "proto=http&token=https%3A%2F%2Fexample.com%2Fa&lang=fr")
            #expect(created.status == 201)
            let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])?["id"] as? String)
            #expect(try await request(.POST, "http://127.0.0.1:\(nodes[1].port)/subscriber/\(id)/subscriptions/scores").status == 201)
            // What one node wrote, every node reads at once: no node caches the registry.
            for node in nodes {
                let subscriber = try await request(.GET, "http://127.0.0.1:\(node.port)/subscriber/\(id)")
                #expect(subscriber.status == 200)
                #expect(subscriber.body.contains(#""lang":"fr""#), "\(subscriber.body)")
                let subscriptions = try await request(.GET, "http://127.0.0.1:\(node.port)/subscriber/\(id)/subscriptions")
                #expect(subscriptions.body == #"{"scores":{"ignore_message":false}}"#)
            }
            #expect(try await request(.DELETE, "http://127.0.0.1:\(nodes[2].port)/subscriber/\(id)").status == 204)
            #expect(try await request(.GET, "http://127.0.0.1:\(nodes[0].port)/subscriber/\(id)").status == 404)
        } catch {
            await stop(nodes)
            throw error
        }
        await stop(nodes)
    }

    /// One event for 2,000 webhook subscribers published on one of two nodes: each subscriber gets
    /// it exactly once, and both nodes send part of it.
    @Test func aFanOutIsSharedByTheNodesAndDeliveredOnce() async throws {
        let subscribers = 2_000
        let server = try await PostgresTestServer.shared()
        let setup = try configuration(database: server.url(database: try await server.createDatabase()))
        // Slow enough that the second node claims pages while the first is busy.
        let receiver = try await WebhookReceiver.start { _ in
            try? await Task.sleep(for: .milliseconds(10))
            return .ok
        }
        let nodes = try await startNodes(2, file: setup.file, directory: setup.directory)
        do {
            _ = try await registerHooks((0..<subscribers).map { "/s/\($0)" }, receiver: receiver, event: "goal", through: nodes[0])
            #expect(try await request(.POST, "http://127.0.0.1:\(nodes[0].port)/event/goal", form: "msg=goal").status == 204)
            try await eventually(limit: .seconds(180)) { receiver.count >= subscribers }
            // Anything sent twice would have arrived by the time statistics settle.
            try await eventually(limit: .seconds(60)) {
                let statistics = try await request(.GET, "http://127.0.0.1:\(nodes[1].port)/event/goal").body
                return statistics.contains(#""delivered":\#(subscribers)"#)
            }
            let paths = receiver.requests.map(\.path)
            #expect(Set(paths).count == subscribers)
            #expect(paths.count == subscribers, "without failures there are no duplicates")
            let first = try await deliveries(of: nodes[0])
            let second = try await deliveries(of: nodes[1])
            #expect(first + second == subscribers)
            #expect(first > 0 && second > 0, "both nodes sent part of the fan-out: \(first) and \(second)")
        } catch {
            await stop(nodes)
            await receiver.stop()
            throw error
        }
        await stop(nodes)
        await receiver.stop()
    }

    /// `kill -9` of the node sending a fan-out: the surviving node takes its pages over once their
    /// leases expire, and every subscriber gets the event, duplicates bounded by the in-flight window.
    @Test func theSurvivorsFinishTheFanOutOfAKilledNode() async throws {
        let subscribers = 3_000
        let server = try await PostgresTestServer.shared()
        let setup = try configuration(database: server.url(database: try await server.createDatabase()))
        let receiver = try await WebhookReceiver.start { _ in
            try? await Task.sleep(for: .milliseconds(20))
            return .ok
        }
        // One node first, so that it alone holds the fan-out when it dies.
        let first = try await startNodes(1, file: setup.file, directory: setup.directory)[0]
        var second: HeraldProcess?
        do {
            _ = try await registerHooks((0..<subscribers).map { "/k/\($0)" }, receiver: receiver, event: "kill", through: first)
            #expect(try await request(.POST, "http://127.0.0.1:\(first.port)/event/kill", form: "msg=kill").status == 204)
            try await receiver.waitFor(count: subscribers / 10, limit: .seconds(120))
            first.signal(SIGKILL)
            _ = await first.waitForExit()
            let beforeTakeOver = Set(receiver.requests.map(\.path)).count
            #expect(beforeTakeOver < subscribers, "the node died mid fan-out")

            second = try await startNodes(1, file: setup.file, directory: setup.directory)[0]
            try await eventually(limit: .seconds(240)) { Set(receiver.requests.map(\.path)).count == subscribers }
            let paths = receiver.requests.map(\.path)
            #expect(Set(paths).count == subscribers)
            #expect(paths.count - subscribers <= 200, "duplicates beyond the in-flight window: \(paths.count - subscribers)")
        } catch {
            await stop([first] + (second.map { [$0] } ?? []))
            await receiver.stop()
            throw error
        }
        await stop([first] + (second.map { [$0] } ?? []))
        await receiver.stop()
    }

    /// A listener on one node gets, once each, what is published on another: with stored
    /// subscribers and without.
    @Test func eventsPublishedOnOneNodeReachListenersOnAnother() async throws {
        let server = try await PostgresTestServer.shared()
        let setup = try configuration(database: server.url(database: try await server.createDatabase()))
        let nodes = try await startNodes(2, file: setup.file, directory: setup.directory)
        do {
            let stream = try await EventStreamClient.connect("http://127.0.0.1:\(nodes[1].port)/subscribe?events=news")
            #expect(stream.status == 200)
            try await stream.waitFor("\n")
            #expect(try await request(.POST, "http://127.0.0.1:\(nodes[0].port)/event/news", form: "msg=first").status == 204)
            try await stream.waitFor("first")
            #expect(try await request(.POST, "http://127.0.0.1:\(nodes[0].port)/event/news", form: "msg=second").status == 204)
            try await stream.waitFor("second")
            let events = stream.received.components(separatedBy: "data: ").dropFirst()
            #expect(events.count == 2, "each event once: \(stream.received)")
            #expect(events.first?.contains(#""message":{"default":"first"}"#) == true)
            stream.close()
        } catch {
            await stop(nodes)
            throw error
        }
        await stop(nodes)
    }

    /// PostgreSQL restarts under a running node: `/status` says 503 while it is away, publishes are
    /// refused rather than accepted and lost, and the node recovers by itself.
    @Test func aNodeSurvivesAPostgreSQLRestart() async throws {
        let server = try await PostgresTestServer.start()
        let setup = try configuration(database: server.url(database: try await server.createDatabase()))
        let receiver = try await WebhookReceiver.start()
        let node = try await startNodes(1, file: setup.file, directory: setup.directory)[0]
        do {
            let ids = try await registerHooks(["/before"], receiver: receiver, event: "e", through: node)
            #expect(ids.count == 1)
            // An orderly restart, as an operator's or an upgrade's (the test cluster runs without
            // durable commits, so an immediate stop would lose the schema itself).
            try await server.stop()
            try await eventually(limit: .seconds(60)) { (try? await node.status()) == 503 }
            let refused = try await request(.POST, "http://127.0.0.1:\(node.port)/event/e", form: "msg=lost")
            #expect(refused.status == 503, "\(refused.body)")
            #expect(refused.retryAfter == "1", "a client may try again soon")

            try await server.restart()
            try await eventually(limit: .seconds(60)) { (try? await node.status()) == 204 }
            #expect(try await request(.POST, "http://127.0.0.1:\(node.port)/event/e", form: "msg=back").status == 204)
            let received = try await receiver.waitFor(count: 1)
            #expect(received.first?.body.contains("back") == true)
            #expect(!receiver.requests.contains { $0.body.contains("lost") }, "a refused publish is never delivered")
        } catch {
            await stop([node])
            await receiver.stop()
            try? await server.stop(immediately: true)
            throw error
        }
        await stop([node])
        await receiver.stop()
        try await server.stop(immediately: true)
    }
}
