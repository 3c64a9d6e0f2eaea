import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// Issue 44: on PostgreSQL, concurrent registrations and publishes share one statement and one
/// commit (the group commit). A process killed with `kill -9` in the middle of a storm of them
/// must still have every one it answered: an answer is sent only after its own row committed.
@Suite struct PostgresGroupCommitCrashTests {
    /// What the storm's clients were answered before the kill.
    final class Answered: Sendable {
        /// Subscriber ids by the token registered.
        let registrations = Mutex<[String: String]>([:])
        /// Ids of accepted publishes.
        let publishes = Mutex<[String]>([])

        var registrationCount: Int { registrations.withLock { $0.count } }
    }

    @Test func aStormOfRegistrationsAndPublishesLosesNoneAnsweredAtAKill() async throws {
        let server = try await PostgresTestServer.shared()
        let url = server.url(database: try await server.createDatabase())
        let directory = TestHerald.makeTemporaryDirectory()
        let config = directory + "/herald.yml"
        try """
            server:
              database: \(url)
            providers:
              http:
                kind: http
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let port = try HeraldProcess.freePort()
        let base = "http://127.0.0.1:\(port)"
        // Enough connections that many requests are in one batch at once.
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 48
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)

        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        let answered = Answered()
        do {
            let storm = Task {
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<48 {
                        group.addTask {
                            var n = 0
                            // Until the process is gone: a request that fails ends the worker.
                            while true {
                                n += 1
                                do {
                                    if n % 4 == 0 {
                                        var request = HTTPClientRequest(url: base + "/event/storm")
                                        request.method = .POST
                                        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                                        request.body = .bytes(ByteBuffer(string: "msg=storm-\(worker)-\(n)"))
                                        let response = try await client.execute(request, timeout: .seconds(30))
                                        guard response.status == .noContent, let id = response.headers.first(name: "Herald-Publish-Id") else { return }
                                        answered.publishes.withLock { $0.append(id) }
                                    } else {
                                        let token = "https://hooks.example.com/storm/\(worker)/\(n)"
                                        var request = HTTPClientRequest(url: base + "/subscribers")
                                        request.method = .POST
                                        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                                        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
                                        request.body = .bytes(ByteBuffer(string: "proto=http&token=\(encoded)&lang=w\(worker)"))
                                        let response = try await client.execute(request, timeout: .seconds(30))
                                        guard response.status == .created else { return }
                                        let body = try await response.body.collect(upTo: 1 << 16)
                                        let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
                                        guard let id = object?["id"] as? String else { return }
                                        answered.registrations.withLock { $0[token] = id }
                                    }
                                } catch {
                                    return
                                }
                            }
                        }
                    }
                }
            }
            // Kill it mid-storm, once a good number are answered.
            try await eventually(limit: .seconds(120)) { answered.registrationCount >= 1_000 }
            herald.signal(SIGKILL)
            _ = await herald.waitForExit()
            await storm.value

            let registrations = answered.registrations.withLock { $0 }
            let publishes = answered.publishes.withLock { $0 }
            #expect(registrations.count >= 1_000)
            #expect(!publishes.isEmpty)
            herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
            // A client of its own for the check: the storm's knew the killed process's connections.
            let check = HTTPClient.shared
            var lost: [String] = []
            for (token, id) in registrations {
                let response = try await check.execute(HTTPClientRequest(url: base + "/subscriber/\(id)"), timeout: .seconds(30))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                if response.status != .ok || !body.contains(token.replacingOccurrences(of: "/", with: "\\/")) && !body.contains(token) {
                    lost.append(token)
                }
            }
            #expect(lost.isEmpty, "\(lost.count) of \(registrations.count) answered registrations were lost, e.g. \(lost.prefix(3))")
            var lostPublishes: [String] = []
            for id in publishes {
                let response = try await check.execute(HTTPClientRequest(url: base + "/publishes/\(id)"), timeout: .seconds(30))
                if response.status != .ok { lostPublishes.append(id) }
                _ = try await response.body.collect(upTo: 1 << 16)
            }
            #expect(lostPublishes.isEmpty, "\(lostPublishes.count) of \(publishes.count) answered publishes were lost")
            herald.signal(SIGTERM)
            #expect(await herald.waitForExit() == 0, "\(herald.log)")
        } catch {
            herald.signal(SIGKILL)
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
