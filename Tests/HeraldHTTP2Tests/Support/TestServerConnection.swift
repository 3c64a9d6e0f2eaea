import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// The test server's per-connection state, confined to the connection's event loop.
final class TestServerConnection {
    let index: Int
    let options: HeraldHTTP2TestServer.Options
    let statistics: NIOLockedValueBox<HeraldHTTP2TestServer.Statistics>
    var rootContext: ChannelHandlerContext?
    private(set) var announcedLimit: Int
    private(set) var goAwayLastStreamID: HTTP2StreamID?
    private var openStreams = 0
    private var requests = 0
    private var answeredFirst = false
    private var lowered = false

    init(index: Int, options: HeraldHTTP2TestServer.Options, statistics: NIOLockedValueBox<HeraldHTTP2TestServer.Statistics>) {
        self.index = index
        self.options = options
        self.statistics = statistics
        self.announcedLimit = options.initialMaxConcurrentStreams
    }

    func streamOpened() {
        self.openStreams += 1
        let open = self.openStreams
        let limitedToOne = self.announcedLimit == 1
        self.statistics.withLockedValue { stats in
            stats.maxConcurrentStreams = max(stats.maxConcurrentStreams, open)
            if limitedToOne {
                stats.maxConcurrentStreamsWhileLimitedToOne = max(stats.maxConcurrentStreamsWhileLimitedToOne, open)
            }
        }
    }

    func streamClosed() {
        self.openStreams -= 1
    }

    /// Counts a complete request and applies the GOAWAY and limit-lowering knobs.
    func requestReceived(streamID: HTTP2StreamID) {
        self.requests += 1
        self.statistics.withLockedValue { $0.requestsReceived += 1 }
        if self.index == 0, self.goAwayLastStreamID == nil, self.requests == self.options.goAwayAfterRequests {
            self.sendGoAway(latestStreamID: streamID)
        }
        if let lower = self.options.lowerMaxConcurrentStreams, !self.lowered, self.requests >= lower.afterRequests {
            self.lowered = true
            self.announce(maxConcurrentStreams: lower.to)
        }
    }

    /// Whether a GOAWAY declared `streamID` unprocessed.
    func isDropped(_ streamID: HTTP2StreamID) -> Bool {
        self.goAwayLastStreamID.map { streamID > $0 } ?? false
    }

    func answered() {
        guard !self.answeredFirst else { return }
        self.answeredFirst = true
        if let raised = self.options.raiseMaxConcurrentStreamsTo, let context = self.rootContext {
            context.eventLoop.assumeIsolated().scheduleTask(in: self.options.raiseDelay) {
                self.announce(maxConcurrentStreams: raised)
            }
        }
    }

    func closeConnection() {
        self.rootContext?.close(promise: nil)
    }

    private func announce(maxConcurrentStreams: Int) {
        guard let context = self.rootContext else { return }
        // Count the new limit from now: a client may only use a raise after receiving it, and
        // nio-http2 enforces a lower limit itself once the client acknowledges it.
        self.announcedLimit = maxConcurrentStreams
        let settings = HTTP2Frame(
            streamID: .rootStream,
            payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams)]))
        )
        context.writeAndFlush(NIOAny(settings), promise: nil)
    }

    private func sendGoAway(latestStreamID: HTTP2StreamID) {
        guard let context = self.rootContext else { return }
        // Client stream IDs are odd; stepping back by an even amount keeps the ID valid.
        let last = HTTP2StreamID(max(0, Int32(latestStreamID) - Int32(2 * self.options.goAwayUnprocessedStreams)))
        self.goAwayLastStreamID = last
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: last, errorCode: .noError, opaqueData: ByteBuffer(string: self.options.goAwayDebugData))
        )
        context.writeAndFlush(NIOAny(frame), promise: nil)
        // Close once the streams at or below `last` had time to be answered.
        context.eventLoop.assumeIsolated().scheduleTask(in: self.options.responseDelay + .milliseconds(300)) {
            context.close(promise: nil)
        }
    }
}
