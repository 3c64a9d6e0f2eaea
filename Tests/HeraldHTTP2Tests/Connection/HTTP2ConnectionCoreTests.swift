import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Synchronization
import Testing

@testable import HeraldHTTP2

/// The engine-independent connection logic, driven by a scripted engine in an `EmbeddedChannel`:
/// what reaches the wire and the pool, whichever engine decodes the frames.
///
/// Requests are started (with their continuations) before the channel exists; everything that
/// touches the channel then runs without suspension, on one thread as `EmbeddedChannel` requires,
/// and the answers are awaited at the end.
@Suite("HTTP2ConnectionCore")
struct HTTP2ConnectionCoreTests {
    /// An engine that writes nothing but records what the core asked of it.
    final class ScriptedEngine: ChannelInboundHandler, HTTP2ConnectionEngine {
        typealias InboundIn = ByteBuffer

        let core: HTTP2ConnectionCore
        private var nextID: Int32 = 1
        /// Refuse the next request written, as an engine does after a GOAWAY.
        var refuseNextWrite = false
        private(set) var written: [HTTP2StreamID] = []
        private(set) var resets: [HTTP2StreamID] = []
        private(set) var pings: [UInt64] = []
        private(set) var flushes = 0

        init(core: HTTP2ConnectionCore) {
            self.core = core
        }

        func handlerAdded(context: ChannelHandlerContext) {
            self.core.attach(context: context, engine: self)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.core.detach()
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.core.channelInactive()
        }

        var nextStreamID: HTTP2StreamID? {
            HTTP2StreamID(self.nextID)
        }

        func writeRequest(of stream: HTTP2StreamHandler, indexingUniqueField: Bool) -> Bool {
            if self.refuseNextWrite {
                self.refuseNextWrite = false
                return false
            }
            self.nextID += 2
            self.written.append(stream.streamID)
            stream.markSent()
            return true
        }

        func writeReset(_ streamID: HTTP2StreamID) {
            self.resets.append(streamID)
        }

        func writePing(_ data: UInt64) {
            self.pings.append(data)
        }

        func flush() {
            self.flushes += 1
        }
    }

    /// A pool stand-in that records what the connection reports.
    final class RecordingDelegate: HTTP2ConnectionDelegate {
        struct Report: Sendable {
            var ready: [Int] = []
            var goAways: [String] = []
            var closed: [(reason: HTTP2ConnectionCloseReason, wasReady: Bool)] = []
            /// Each report of released streams: how many, and the IDs of the requests to retry.
            var releases: [(count: Int, retries: [ObjectIdentifier])] = []
        }

        let report = Mutex(Report())

        func connectionReady(_ id: HTTP2ConnectionID, maxConcurrentStreams: Int) {
            self.report.withLock { $0.ready.append(maxConcurrentStreams) }
        }

        func connectionMaxConcurrentStreamsChanged(_ id: HTTP2ConnectionID, to maxConcurrentStreams: Int) {}

        func connectionReceivedGoAway(_ id: HTTP2ConnectionID, reason: String) {
            self.report.withLock { $0.goAways.append(reason) }
        }

        func connectionClosed(_ id: HTTP2ConnectionID, reason: HTTP2ConnectionCloseReason, wasReady: Bool) {
            self.report.withLock { $0.closed.append((reason, wasReady)) }
        }

        func streamFinished(on id: HTTP2ConnectionID, retry: HTTP2RequestContext?, connectionUsable: Bool) {
            self.report.withLock { $0.releases.append((1, retry.map { [ObjectIdentifier($0)] } ?? [])) }
        }

        func streamsFinished(on id: HTTP2ConnectionID, count: Int, retries: [HTTP2RequestContext], connectionUsable: Bool) {
            self.report.withLock { $0.releases.append((count, retries.map(ObjectIdentifier.init))) }
        }
    }

    /// A channel with a core behind the scripted engine.
    struct Connection {
        let channel: EmbeddedChannel
        let core: HTTP2ConnectionCore
        let engine: ScriptedEngine
        let delegate: RecordingDelegate

        init(configure: (inout HTTP2ClientConfiguration) -> Void = { _ in }) throws {
            var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: 443, tls: nil)
            configure(&configuration)
            self.channel = EmbeddedChannel()
            // The loop's clock starts at the real time, so that deadlines taken from `NIODeadline.now()` fall due on it.
            self.channel.embeddedEventLoop.advanceTime(to: .now())
            self.delegate = RecordingDelegate()
            self.core = HTTP2ConnectionCore(
                id: HTTP2ConnectionID(rawValue: 1), settings: HTTP2ConnectionSettings(configuration: configuration), delegate: self.delegate,
                readyDeadline: .now() + .seconds(60), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            self.engine = ScriptedEngine(core: self.core)
            try self.channel.pipeline.syncOperations.addHandler(self.engine)
            try self.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        }
    }

    typealias Answer = Task<Result<HTTP2Response, HTTP2ClientError>, Never>

    /// Requests started with continuations, whose answers the returned tasks give.
    private func started(_ count: Int, deadline: NIODeadline = .now() + .seconds(60)) async -> [(HTTP2RequestContext, Answer)] {
        var requests: [(HTTP2RequestContext, Answer)] = []
        for index in 0..<count {
            let context = HTTP2RequestContext(request: HTTP2Request(path: "/\(index)"), deadline: deadline)
            let (startedStream, started) = AsyncStream<Void>.makeStream()
            let answer = Task {
                await withUnsafeContinuation { continuation in
                    _ = context.start(continuation)
                    started.yield()
                }
            }
            for await _ in startedStream { break }
            requests.append((context, answer))
        }
        return requests
    }

    /// Answers requests that were handed back to the pool, as the pool eventually would, so that no task waits forever.
    private func settle(_ requests: [(HTTP2RequestContext, Answer)]) {
        for (context, _) in requests {
            context.finish(.failure(.shutdown(mayHaveBeenProcessed: false)))
        }
    }

    @Test("nothing is written before the server's first SETTINGS, nor beyond its limit; the rest goes back to the pool unsent")
    func limits() async throws {
        let requests = await self.started(3)
        let connection = try Connection()
        connection.core.openStreams([requests[0].0])
        #expect(connection.engine.written.isEmpty)
        connection.core.receivedSettings(maxConcurrentStreams: 1)
        connection.core.openStreams([requests[1].0, requests[2].0])
        #expect(connection.engine.written == [1])
        #expect(connection.engine.flushes == 1)
        let report = connection.delegate.report.withLock { $0 }
        #expect(report.ready == [1])
        #expect(report.releases.map(\.retries) == [[ObjectIdentifier(requests[0].0)], [ObjectIdentifier(requests[2].0)]])
        connection.channel.close(promise: nil)
        self.settle(requests)
        let inFlight = await requests[1].1.value
        #expect(throws: HTTP2ClientError.self) { try inFlight.get() }
        #expect(connection.delegate.report.withLock { $0.closed.map(\.wasReady) } == [true])
    }

    @Test("streams that end during a read reach the pool in one report when it completes, retries in their order")
    func releasesOfAReadAreReportedTogether() async throws {
        let requests = await self.started(3)
        let connection = try Connection()
        connection.core.receivedSettings(maxConcurrentStreams: nil)
        connection.core.openStreams(requests.map(\.0))
        #expect(connection.engine.written == [1, 3, 5])

        connection.core.readStarted()
        let first = try #require(connection.core.streams[1])
        first.receivedHeaders(status: 200, fields: .none, endStream: true)
        first.closed(reason: nil)
        connection.core.streams[5]?.closed(reason: .refusedStream)
        connection.core.streams[3]?.closed(reason: .refusedStream)
        #expect(connection.delegate.report.withLock { $0.releases.isEmpty })
        connection.core.readCompleted()

        let report = connection.delegate.report.withLock { $0 }
        #expect(report.releases.count == 1)
        #expect(report.releases.first?.count == 3)
        #expect(report.releases.first?.retries == [ObjectIdentifier(requests[2].0), ObjectIdentifier(requests[1].0)])
        #expect(connection.core.streams.count == 0)
        connection.channel.close(promise: nil)
        self.settle(requests)
        #expect(try await requests[0].1.value.get().status == 200)
    }

    @Test("a request the engine could not write goes back to the pool as never sent")
    func refusedWrite() async throws {
        let requests = await self.started(1)
        let connection = try Connection { $0.maxTransparentRetries = 0 }
        connection.core.receivedSettings(maxConcurrentStreams: 10)
        connection.engine.refuseNextWrite = true
        connection.core.openStreams([requests[0].0])
        // Even with no retry of sent requests allowed: the server never saw this one.
        #expect(connection.delegate.report.withLock { $0.releases.map(\.retries) } == [[ObjectIdentifier(requests[0].0)]])
        #expect(connection.core.streams.count == 0)
        connection.channel.close(promise: nil)
        self.settle(requests)
    }

    @Test("after GOAWAY, streams above its last stream ID are retried and the one below fails as possibly processed when the connection closes")
    func goAway() async throws {
        let requests = await self.started(3)
        let connection = try Connection()
        connection.core.receivedSettings(maxConcurrentStreams: 10)
        connection.core.openStreams(requests.map(\.0))
        connection.core.readStarted()
        connection.core.receivedGoAway(lastStreamID: 1, errorCode: .noError, debugData: ByteBuffer(string: #"{"reason":"Shutdown"}"#))
        // Engines close the streams the server did not process; how they phrase it does not matter.
        connection.core.streams[3]?.closed(reason: .refusedStream)
        connection.core.streams[5]?.closed(reason: nil)
        connection.core.readCompleted()
        #expect(!connection.core.isUsable)

        let report = connection.delegate.report.withLock { $0 }
        #expect(report.goAways == ["Shutdown"])
        #expect(report.releases.first?.retries == [ObjectIdentifier(requests[1].0), ObjectIdentifier(requests[2].0)])
        connection.channel.close(promise: nil)
        let error = await #expect(throws: HTTP2ClientError.self) { try await requests[0].1.value.get() }
        #expect(error?.kind == .goAway)
        #expect(error?.mayHaveBeenProcessed == true)
        self.settle(requests)
    }

    @Test("a stream past its deadline fails as possibly processed and is reset; its release waits for the engine's close")
    func deadline() async throws {
        let requests = await self.started(1, deadline: .now() - .milliseconds(1))
        let connection = try Connection()
        connection.core.receivedSettings(maxConcurrentStreams: 10)
        connection.core.openStreams([requests[0].0])
        connection.channel.embeddedEventLoop.run()
        #expect(connection.engine.resets == [1])
        #expect(connection.delegate.report.withLock { $0.releases.isEmpty })
        connection.core.streams[1]?.closed(reason: .cancel)
        #expect(connection.delegate.report.withLock { $0.releases.map(\.count) } == [1])
        connection.channel.close(promise: nil)
        let error = await #expect(throws: HTTP2ClientError.self) { try await requests[0].1.value.get() }
        #expect(error?.kind == .deadlineExceeded)
        #expect(error?.mayHaveBeenProcessed == true)
    }

    @Test("an idle connection is PINGed; an answer keeps it, silence closes it")
    func keepalive() throws {
        let connection = try Connection {
            $0.idlePingInterval = .seconds(1)
            $0.pingTimeout = .seconds(1)
        }
        connection.core.receivedSettings(maxConcurrentStreams: 10)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(connection.engine.pings.count == 1)
        connection.core.receivedPingAck(connection.core.pingData)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(connection.channel.isActive)
        #expect(connection.engine.pings.count == 2)
        // An acknowledgement of somebody else's PING does not count.
        connection.core.receivedPingAck(connection.core.pingData &+ 1)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!connection.channel.isActive)
        #expect(connection.delegate.report.withLock { $0.closed.map(\.reason) } == [.pingTimeout])
    }
}
