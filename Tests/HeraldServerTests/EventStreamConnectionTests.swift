import HeraldTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// Event streams on plain HTTP/1.1 connections, which Herald serves beside its router
/// (``EventStreamTakeover``): what a client sees must not depend on which path served it.
@Suite struct EventStreamConnectionTests {
    /// A raw TCP connection to Herald that collects what the server sends.
    final class RawConnection: Sendable {
        let channel: any Channel
        private let text = Mutex("")
        private let closed = Mutex(false)

        private init(channel: any Channel) {
            self.channel = channel
        }

        /// Connects to `port`; with `reading: false` the client never reads, and its receive buffer is small.
        static func connect(port: Int, reading: Bool = true) async throws -> RawConnection {
            var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            if !reading {
                bootstrap = bootstrap.channelOption(.autoRead, value: false)
                    .channelOption(.socketOption(.so_rcvbuf), value: 4096)
            }
            let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
            let connection = RawConnection(channel: channel)
            try await channel.pipeline.addHandler(Collector(connection: connection))
            return connection
        }

        /// Sends `request` as it is.
        func send(_ request: String) async throws {
            try await channel.writeAndFlush(ByteBuffer(string: request))
        }

        /// Everything received so far.
        var received: String { text.withLock { $0 } }

        /// Whether the server closed the connection.
        var isClosed: Bool { closed.withLock { $0 } }

        /// Waits until the received text contains `fragment`.
        func waitFor(_ fragment: String) async throws {
            try await eventually(limit: .seconds(30)) { self.received.contains(fragment) }
        }

        func close() {
            channel.close(promise: nil)
        }

        private final class Collector: ChannelInboundHandler, Sendable {
            typealias InboundIn = ByteBuffer
            let connection: RawConnection
            init(connection: RawConnection) { self.connection = connection }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                let buffer = unwrapInboundIn(data)
                connection.text.withLock { $0 += String(buffer: buffer) }
            }

            func channelInactive(context: ChannelHandlerContext) {
                connection.closed.withLock { $0 = true }
                context.fireChannelInactive()
            }
        }
    }

    @Test func aStreamFollowsAnAnsweredRequestOnTheSameConnection() async throws {
        try await withHerald { herald in
            let connection = try await RawConnection.connect(port: herald.port)
            try await connection.send("GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
            try await connection.waitFor("HTTP/1.1 204")
            try await connection.send("GET /subscribe?events=kept HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
            try await connection.waitFor("text/event-stream")
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 1") }
            #expect(try await herald.request(.POST, "/event/kept", form: "msg=again").status == 204)
            try await connection.waitFor(#""message":{"default":"again"}"#)
            connection.close()
        }
    }

    @Test func aStreamPipelinedBehindAnotherRequestWaitsForItsAnswer() async throws {
        try await withHerald { herald in
            let connection = try await RawConnection.connect(port: herald.port)
            try await connection.send(
                "GET /events HTTP/1.1\r\nHost: x\r\n\r\nGET /subscribe?events=piped HTTP/1.1\r\nHost: x\r\n\r\n")
            try await connection.waitFor("text/event-stream")
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 1") }
            #expect(try await herald.request(.POST, "/event/piped", form: "msg=both").status == 204)
            try await connection.waitFor(#""message":{"default":"both"}"#)
            let received = connection.received
            let first = try #require(received.range(of: "HTTP/1.1 200"))
            let second = try #require(received.range(of: "HTTP/1.1 200", range: first.upperBound..<received.endIndex))
            #expect(received[first.upperBound..<second.lowerBound].contains("application/json"), "the list came first, whole: \(received)")
            #expect(received[second.upperBound...].contains("text/event-stream"))
            connection.close()
        }
    }

    @Test func aStreamOutlivesTheIdleTimeout() async throws {
        try await withHerald(yaml: "server:\n  idle_timeout: 0.2\n") { herald in
            let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=late")
            #expect(stream.status == 200)
            // Five idle timeouts with nothing on the wire: a stream is not an idle connection.
            try await Task.sleep(for: .seconds(1))
            #expect(try await herald.request(.POST, "/event/late", form: "msg=still+here").status == 204)
            try await stream.waitFor("still here")
            stream.close()
        }
    }

    @Test func aListenerThatStopsReadingIsDisconnected() async throws {
        try await withHerald(yaml: "event_source:\n  max_buffered: 2\n") { herald in
            let connection = try await RawConnection.connect(port: herald.port, reading: false)
            try await connection.send("GET /subscribe?events=flood HTTP/1.1\r\nHost: x\r\n\r\n")
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 1") }
            // Each event is 256 KiB: the kernel's buffers fill after a few, and then two are left unsent.
            let message = String(repeating: "x", count: 256 * 1024)
            var published = 0
            while try await !herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 0"), published < 200 {
                #expect(try await herald.request(.POST, "/event/flood", json: #"{"msg":"\#(message)"}"#).status == 204)
                published += 1
            }
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 0") }
            #expect(published > 2 && published < 200, "disconnected once its buffers were full, after \(published) events")
            connection.close()
        }
    }

    @Test func aListenerThatHangsUpIsForgotten() async throws {
        // No keepalive within the test: only the connection's end can tell the hub.
        try await withHerald(yaml: "event_source:\n  keepalive_interval: 600\n") { herald in
            let connection = try await RawConnection.connect(port: herald.port)
            try await connection.send("GET /subscribe?events=gone HTTP/1.1\r\nHost: x\r\n\r\nsent after the request, ignored")
            try await connection.waitFor("text/event-stream")
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 1") }
            connection.close()
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 0") }
        }
    }

    @Test(.timeLimit(.minutes(1))) func stoppingTheServerEndsItsStreams() async throws {
        let herald = try await TestHerald.start(yaml: "")
        let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=bye")
        try await stream.waitFor("\n")
        try await herald.stop()
        await stream.waitForEnd()
        #expect(stream.received.allSatisfy { $0 == "\n" })
    }
}
