import Logging
import NIOCore
import Testing

@testable import HeraldHTTP2

@Suite("HTTP2ConnectionPool over h2c", .timeLimit(.minutes(1)))
struct HTTP2ConnectionPoolTests {
    @Test("a request gets its response: status, headers and body", arguments: HTTP2Engine.allCases)
    func roundTrip(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let response = try await pool.execute(testRequest(id: "one", body: #"{"aps":{"alert":"hi"}}"#))
            #expect(response.status == 200)
            #expect(response.header("x-request-id") == "one")
            #expect(String(buffer: response.body) == #"{"aps":{"alert":"hi"}}"#)
            let empty = try await pool.execute(testRequest(id: "two"))
            #expect(empty.body.readableBytes == 0)
            #expect(server.statistics.connectionsAccepted == 1)
            #expect(pool.statistics.openConnections == 1)
        }
    }

    @Test("1 000 concurrent requests all complete; the pool grows to maxConnections and never exceeds the stream limit", arguments: HTTP2Engine.allCases)
    func thousandConcurrent(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 50
        options.responseDelay = .milliseconds(2)
        try await withServerAndPool(engine: engine, server: options) { $0.maxConnections = 4 } _: { server, pool in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<1000 {
                    group.addTask { try await pool.execute(testRequest(id: "r\(index)", body: "payload \(index)")).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 1000)
            #expect(statuses.allSatisfy { $0 == 200 })
            let stats = server.statistics
            #expect(stats.processed.count == 1000)
            #expect(stats.processed.values.allSatisfy { $0 == 1 })
            #expect(stats.connectionsAccepted == 4)
            #expect(stats.maxConcurrentStreams <= 50)
            #expect(stats.streamLimitViolations == 0)
            // Responses are delivered just before their streams are released.
            let drained = try await eventually { pool.statistics.streamsInFlight == 0 }
            #expect(drained)
            #expect(pool.statistics.queuedRequests == 0)
            #expect(pool.statistics.openConnections == 4)
        }
    }

    @Test("a server starting at 1 concurrent stream and raising it to 100 is obeyed at every step", arguments: HTTP2Engine.allCases)
    func limitRaised(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 1
        options.raiseMaxConcurrentStreamsTo = 100
        options.responseDelay = .milliseconds(2)
        try await withServerAndPool(engine: engine, server: options) { $0.maxConnections = 2 } _: { server, pool in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<400 {
                    group.addTask {
                        let response = try await pool.execute(testRequest(id: "r\(index)"))
                        #expect(response.status == 200)
                    }
                }
                try await group.waitForAll()
            }
            let stats = server.statistics
            #expect(stats.processed.count == 400)
            #expect(stats.streamLimitViolations == 0)
            #expect(stats.maxConcurrentStreamsWhileLimitedToOne <= 1)
            #expect(stats.maxConcurrentStreams <= 100)
            // The raise was used, not just tolerated.
            #expect(stats.maxConcurrentStreams > 1)
            // Both connections end up at the raised limit (the second one's raise may land after the load).
            let raised = try await eventually { pool.statistics.streamCapacity == 200 }
            #expect(raised)
        }
    }

    @Test("a server lowering its limit mid-load is obeyed: no stream beyond the new limit", arguments: HTTP2Engine.allCases)
    func limitLowered(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 50
        options.lowerMaxConcurrentStreams = (to: 2, afterRequests: 100)
        options.responseDelay = .milliseconds(1)
        // After the lowering the requests go two at a time, each a round trip: on a machine loaded
        // by the whole test run that can take seconds, so the deadline only guards against hangs.
        try await withServerAndPool(engine: engine, server: options) {
            $0.maxConnections = 1
            $0.streamDeadline = .seconds(50)
        } _: { server, pool in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await pool.execute(testRequest(id: "r\(index)"))
                        #expect(response.status == 200)
                    }
                }
                try await group.waitForAll()
            }
            let stats = server.statistics
            #expect(stats.processed.count == 200)
            #expect(stats.streamLimitViolations == 0)
            #expect(stats.connectionsAccepted == 1)
            #expect(pool.statistics.streamCapacity == 2)
        }
    }

    @Test("bodies larger than the flow-control windows cross both ways, on many streams at once", arguments: HTTP2Engine.allCases)
    func largeBodies(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        // 150 KB each: more than a stream's window (64 KB) and, together, many times the connection's.
                        let body = String(repeating: "\(index % 10)", count: 150_000)
                        let response = try await pool.execute(testRequest(id: "big\(index)", body: body))
                        #expect(response.status == 200)
                        #expect(response.body.readableBytes == 150_000)
                        #expect(String(buffer: response.body) == body)
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.statistics.processed.count == 20)
            let response = try await pool.execute(testRequest(id: "after"))
            #expect(response.status == 200)
            #expect(server.statistics.connectionsAccepted == 1)
        }
    }

    @Test("an informational response before the final one and trailers after the body are read past", arguments: HTTP2Engine.allCases)
    func informationalAndTrailers(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let response = try await pool.execute(testRequest("/hints-and-trailers", id: "hinted", body: "hello, trailers"))
            #expect(response.status == 200)
            #expect(response.header("x-request-id") == "hinted")
            #expect(response.header("link") == nil)
            #expect(response.header("x-checksum") == nil)
            #expect(String(buffer: response.body) == "hello, trailers")
            let next = try await pool.execute(testRequest(id: "next"))
            #expect(next.status == 200)
        }
    }

    @Test("RST_STREAM REFUSED_STREAM is retried transparently", arguments: HTTP2Engine.allCases)
    func refusedStreamRetried(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let response = try await pool.execute(testRequest("/refuse-once", id: "refused"))
            #expect(response.status == 200)
            let stats = server.statistics
            #expect(stats.refusedStreams == 1)
            #expect(stats.processed["refused"] == 1)
        }
    }

    @Test("warmUp() opens a connection before any request, and the first request uses it", arguments: HTTP2Engine.allCases)
    func warmUp(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            pool.warmUp()
            let warm = try await eventually { pool.statistics.openConnections == 1 }
            #expect(warm)
            #expect(server.statistics.connectionsAccepted == 1)
            #expect(server.statistics.processed.isEmpty)
            pool.warmUp()
            let response = try await pool.execute(testRequest(id: "first"))
            #expect(response.header("x-connection") == "0")
            #expect(server.statistics.connectionsAccepted == 1)
        }
    }

    @Test("resetConnections() makes later requests use a new connection", arguments: HTTP2Engine.allCases)
    func resetConnections(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let before = try await pool.execute(testRequest(id: "before"))
            #expect(before.header("x-connection") == "0")
            pool.resetConnections()
            let after = try await pool.execute(testRequest(id: "after"))
            #expect(after.header("x-connection") == "1")
            #expect(server.statistics.connectionsAccepted == 2)
            let settled = try await eventually { pool.statistics.openConnections == 1 && pool.statistics.drainingConnections == 0 }
            #expect(settled)
        }
    }

    @Test("the queue is bounded: beyond maxQueuedRequests requests fail at once with tooManyQueued; shutdown fails the queued ones", arguments: HTTP2Engine.allCases)
    func queueLimitAndShutdown(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 1
        let server = try await HeraldHTTP2TestServer.start(options: options)
        var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: server.port, tls: nil)
        configuration.engine = engine
        configuration.maxConnections = 1
        configuration.maxQueuedRequests = 2
        configuration.streamDeadline = .seconds(20)
        let pool = HTTP2ConnectionPool(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

        func hang(_ index: Int) -> Task<HTTP2ClientError?, Never> {
            Task { await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest("/hang", id: "h\(index)")) } }
        }
        // One on the only stream, then two waiting for it.
        var hanging = [hang(0)]
        let onStream = try await eventually { pool.statistics.streamsInFlight == 1 }
        #expect(onStream)
        hanging += [hang(1), hang(2)]
        let queued = try await eventually { pool.statistics.queuedRequests == 2 }
        #expect(queued)
        let rejected = await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest(id: "extra")) }
        #expect(rejected?.kind == .tooManyQueued)
        #expect(rejected?.mayHaveBeenProcessed == false)

        await pool.shutdown()
        var errors: [HTTP2ClientError] = []
        for task in hanging {
            if let error = await task.value {
                errors.append(error)
            }
        }
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0.kind == .shutdown && !$0.isRetryable })
        #expect(errors.filter { !$0.mayHaveBeenProcessed }.count == 2)  // the queued ones never left
        let afterShutdown = await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest(id: "late")) }
        #expect(afterShutdown?.kind == .shutdown)
        try await server.shutdown()
    }

    @Test("cancelling the calling task fails the request with cancelled and resets its stream", arguments: HTTP2Engine.allCases)
    func cancellation(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let task = Task { await failure { () async throws(HTTP2ClientError) in try await pool.execute(testRequest("/hang", id: "c")) } }
            let received = try await eventually { server.statistics.requestsReceived == 1 }
            #expect(received)
            task.cancel()
            let error = await task.value
            #expect(error?.kind == .cancelled)
            let reset = try await eventually { server.statistics.resetsReceived == 1 }
            #expect(reset)
            let settled1 = try await eventually { pool.statistics.streamsInFlight == 0 }
            #expect(settled1)
        }
    }
}
