import HeraldTestFixtures
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import HeraldHTTP2

@Suite("HTTP2ConnectionPool failures", .timeLimit(.minutes(1)))
struct HTTP2ConnectionPoolFailureTests {
    @Test("GOAWAY mid-load: every request completes exactly once, unprocessed streams are retried elsewhere, the reason is logged", arguments: HTTP2Engine.allCases)
    func goAwayMidLoad(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.goAwayAfterRequests = 50
        options.goAwayUnprocessedStreams = 10
        options.responseDelay = .milliseconds(30)
        let (logger, logs) = CollectingLogHandler.makeLogger(level: .info)
        try await withServerAndPool(engine: engine, server: options, logger: logger) { $0.maxConnections = 2 } _: { server, pool in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<500 {
                    group.addTask {
                        let response = try await pool.execute(testRequest(id: "r\(index)"))
                        #expect(response.status == 200)
                    }
                }
                try await group.waitForAll()
            }
            let stats = server.statistics
            #expect(stats.processed.count == 500)
            #expect(stats.processed.values.allSatisfy { $0 == 1 })  // nothing processed twice
            #expect(stats.droppedAfterGoAway >= 1)  // the retry path was taken
            #expect(stats.connectionsAccepted >= 2)
            #expect(logs.all.contains { $0.contains("GOAWAY") && $0.contains("Shutdown") })
        }
    }

    @Test("a server that never answers: the request fails with deadlineExceeded and its stream is reset", arguments: HTTP2Engine.allCases)
    func deadline(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            // Open the connection first, so that the deadline runs out on the stream, not while connecting.
            _ = try await pool.execute(testRequest(id: "warm-up"))
            let error = await failure { () async throws(HTTP2ClientError) in
                try await pool.execute(testRequest("/hang", id: "slow"), deadline: .seconds(1))
            }
            #expect(error?.kind == .deadlineExceeded)
            #expect(error?.isRetryable == true)
            #expect(error?.mayHaveBeenProcessed == true)
            let reset = try await eventually { server.statistics.resetsReceived == 1 }
            #expect(reset)
            // The connection is still fine.
            let response = try await pool.execute(testRequest(id: "next"))
            #expect(response.status == 200)
            #expect(server.statistics.connectionsAccepted == 1)
        }
    }

    @Test("requests waiting for a stream also expire at their deadline", arguments: HTTP2Engine.allCases)
    func deadlineWhileQueued(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 1
        try await withServerAndPool(engine: engine, server: options) { $0.maxConnections = 1 } _: { server, pool in
            let blocker = Task { await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest("/hang", id: "blocker")) } }
            let settled1 = try await eventually { pool.statistics.streamsInFlight == 1 }
            #expect(settled1)
            let error = await failure { () async throws(HTTP2ClientError) in
                try await pool.execute(testRequest(id: "waiting"), deadline: .milliseconds(200))
            }
            #expect(error?.kind == .deadlineExceeded)
            #expect(error?.mayHaveBeenProcessed == false)
            #expect(server.statistics.processed["waiting"] == nil)
            blocker.cancel()
            _ = await blocker.value
        }
    }

    @Test("the server closing the TCP connection mid-flight fails in-flight requests with a retryable error; later requests use a new connection", arguments: HTTP2Engine.allCases)
    func connectionClosedMidFlight(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let inFlight = (0..<5).map { index in
                Task { await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest("/hang", id: "h\(index)")) } }
            }
            let settled2 = try await eventually { server.statistics.requestsReceived == 5 }
            #expect(settled2)
            let closer = await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest("/close-connection", id: "close")) }
            #expect(closer?.kind == .connectionClosed)
            for task in inFlight {
                let error = await task.value
                #expect(error?.kind == .connectionClosed)
                #expect(error?.isRetryable == true)
                #expect(error?.mayHaveBeenProcessed == true)
            }
            let response = try await pool.execute(testRequest(id: "after"))
            #expect(response.status == 200)
            #expect(response.header("x-connection") == "1")
            #expect(server.statistics.connectionsAccepted == 2)
        }
    }

    @Test("an idle connection is PINGed and stays open while the server answers", arguments: HTTP2Engine.allCases)
    func idlePing(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) {
            $0.idlePingInterval = .milliseconds(50)
            $0.pingTimeout = .seconds(5)
        } _: { server, pool in
            _ = try await pool.execute(testRequest(id: "first"))
            let pinged = try await eventually { server.statistics.pingsReceived >= 2 }
            #expect(pinged)
            let response = try await pool.execute(testRequest(id: "second"))
            #expect(response.header("x-connection") == "0")
            #expect(server.statistics.connectionsAccepted == 1)
        }
    }

    @Test("a PING left unanswered closes the connection; the next request opens a new one", arguments: HTTP2Engine.allCases)
    func pingTimeout(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) {
            $0.idlePingInterval = .milliseconds(50)
            // Generous: healthy connections must answer in time even on a loaded test machine
            // (1 s once proved too short for the second connection during the whole parallel suite).
            $0.pingTimeout = .seconds(3)
        } _: { server, pool in
            _ = try await pool.execute(testRequest(id: "first"))
            try await server.freezeConnections()
            let closed = try await eventually { pool.statistics.openConnections == 0 }
            #expect(closed)
            let response = try await pool.execute(testRequest(id: "second"))
            #expect(response.status == 200)
            #expect(response.header("x-connection") == "1")
            #expect(server.statistics.connectionsAccepted == 2)
        }
    }

    @Test("with nothing listening, waiting requests fail with connectFailed at their deadline and attempts back off", arguments: HTTP2Engine.allCases)
    func connectFailure(engine: HTTP2Engine) async throws {
        // A port bound without listening refuses connections, and no other test can take it
        // meanwhile (a port merely released could be bound by a server of a test running alongside).
        let reserved = try ReservedPort()
        defer { reserved.close() }
        let port = reserved.port

        var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: port, tls: nil)

        configuration.engine = engine
        configuration.reconnectBackoff = HTTP2ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(100))
        let pool = HTTP2ConnectionPool(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let error = await failure { () async throws(HTTP2ClientError) in
            try await pool.execute(testRequest(id: "nobody"), deadline: .seconds(3))
        }
        #expect(error?.kind == .connectFailed)
        #expect(error?.isRetryable == true)
        #expect(error?.mayHaveBeenProcessed == false)
        #expect(pool.statistics.consecutiveConnectFailures >= 2)
        await pool.shutdown()
    }
}
