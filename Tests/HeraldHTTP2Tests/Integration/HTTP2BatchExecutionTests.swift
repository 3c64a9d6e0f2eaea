import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import HeraldHTTP2

/// The results a batch handed to its handler, by request index.
private final class BatchResults: Sendable {
    private let results = NIOLockedValueBox<[Int: [Result<HTTP2Response, HTTP2ClientError>]]>([:])

    func record(_ index: Int, _ result: Result<HTTP2Response, HTTP2ClientError>) {
        results.withLockedValue { $0[index, default: []].append(result) }
    }

    var all: [Int: [Result<HTTP2Response, HTTP2ClientError>]] {
        results.withLockedValue { $0 }
    }
}

@Suite("HTTP2ConnectionPool batches", .timeLimit(.minutes(1)))
struct HTTP2BatchExecutionTests {
    @Test("every request of a batch is answered exactly once, with its own response, within the batch's window", arguments: HTTP2Engine.allCases)
    func windowedBatch(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.responseDelay = .milliseconds(1)
        try await withServerAndPool(engine: engine, server: options) { $0.maxConnections = 2 } _: { server, pool in
            let results = BatchResults()
            let requests = (0..<600).map { testRequest(id: "b\($0)", body: "body \($0)") }
            await pool.execute(requests, maxConcurrent: 40) { index, result in results.record(index, result) }
            let all = results.all
            #expect(all.count == 600)
            #expect(all.values.allSatisfy { $0.count == 1 })
            for (index, answers) in all {
                let response = try answers[0].get()
                #expect(response.status == 200)
                #expect(response.header("x-request-id") == "b\(index)")
                #expect(String(buffer: response.body) == "body \(index)")
            }
            let stats = server.statistics
            #expect(stats.processed.count == 600)
            #expect(stats.processed.values.allSatisfy { $0 == 1 })
            // The window, not the pool's capacity (2 × 100 streams), bounded the streams in use.
            #expect(stats.maxConcurrentStreams <= 40)
            #expect(pool.statistics.queuedRequests == 0)
        }
    }

    @Test("an empty batch returns at once", arguments: HTTP2Engine.allCases)
    func emptyBatch(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let results = BatchResults()
            await pool.execute([], maxConcurrent: 10) { index, result in results.record(index, result) }
            #expect(results.all.isEmpty)
            #expect(server.statistics.connectionsAccepted == 0)
        }
    }

    @Test("failures reach the handler per request: requests the queue refuses fail with tooManyQueued, the others are answered", arguments: HTTP2Engine.allCases)
    func refusedByTheQueue(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 5
        options.responseDelay = .milliseconds(20)
        try await withServerAndPool(engine: engine, server: options) {
            $0.maxConnections = 1
            $0.maxQueuedRequests = 10
        } _: { server, pool in
            let results = BatchResults()
            let requests = (0..<50).map { testRequest(id: "q\($0)") }
            // The whole batch arrives at once: 5 streams (once connected) and 10 places in the queue.
            await pool.execute(requests, maxConcurrent: 50) { index, result in results.record(index, result) }
            let all = results.all
            #expect(all.count == 50)
            #expect(all.values.allSatisfy { $0.count == 1 })
            var refused = 0
            var answered = 0
            for answers in all.values {
                switch answers[0] {
                case .success(let response):
                    if response.status == 200 { answered += 1 }
                case .failure(let error):
                    if error.kind == .tooManyQueued { refused += 1 }
                }
            }
            #expect(refused + answered == 50)
            #expect(answered >= 10)
            #expect(refused > 0)
            #expect(server.statistics.processed.count == answered)
        }
    }

    @Test("each request has its own deadline from its submission", arguments: HTTP2Engine.allCases)
    func deadlines(engine: HTTP2Engine) async throws {
        try await withServerAndPool(engine: engine) { server, pool in
            let results = BatchResults()
            let requests = (0..<3).map { testRequest("/hang", id: "d\($0)") }
            await pool.execute(requests, maxConcurrent: 3, deadline: .milliseconds(300)) { index, result in results.record(index, result) }
            let all = results.all
            #expect(all.count == 3)
            for answers in all.values {
                guard case .failure(let error) = answers[0] else {
                    Issue.record("a request to /hang was answered")
                    continue
                }
                #expect(error.kind == .deadlineExceeded)
            }
        }
    }

    @Test("cancelling the calling task fails every request not yet answered with cancelled, and the batch returns", arguments: HTTP2Engine.allCases)
    func cancellation(engine: HTTP2Engine) async throws {
        var options = HeraldHTTP2TestServer.Options()
        options.initialMaxConcurrentStreams = 4
        try await withServerAndPool(engine: engine, server: options) { $0.maxConnections = 1 } _: { server, pool in
            let results = BatchResults()
            let requests = (0..<20).map { testRequest("/hang", id: "c\($0)") }
            let batch = Task {
                await pool.execute(requests, maxConcurrent: 8) { index, result in results.record(index, result) }
            }
            // 4 on streams, 4 queued in the pool, 12 not submitted yet.
            let started = try await eventually { pool.statistics.streamsInFlight == 4 && pool.statistics.queuedRequests == 4 }
            #expect(started)
            batch.cancel()
            await batch.value
            let all = results.all
            #expect(all.count == 20)
            #expect(all.values.allSatisfy { $0.count == 1 })
            for answers in all.values {
                guard case .failure(let error) = answers[0] else {
                    Issue.record("a request to /hang was answered")
                    continue
                }
                #expect(error.kind == .cancelled)
            }
            let drained = try await eventually { pool.statistics.streamsInFlight == 0 && pool.statistics.queuedRequests == 0 }
            #expect(drained)
        }
    }
}
