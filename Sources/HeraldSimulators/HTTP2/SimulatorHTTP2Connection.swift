import Logging
import NIOCore
import NIOHTTP2
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection of an HTTP/2 simulator: its open streams, and its two ways of ending, a `GOAWAY` that lets the
/// streams it covers finish, and an abrupt reset.
///
/// Lives on the connection's event loop; every method must be called there (it is reached through `NIOLoopBound`).
/// A service that keeps more per connection subclasses it, as ``APNsConnectionState`` does for its stream limit.
class SimulatorHTTP2Connection {
    let channel: any Channel
    let logger: Logger
    private let registry: SimulatorConnectionRegistry
    private let goAwayGracePeriod: TimeAmount

    private var streams: Set<HTTP2StreamID> = []
    private var highestStreamID = HTTP2StreamID.rootStream
    private var goAwayLastStreamID: HTTP2StreamID?
    /// Whether the `GOAWAY` is on the wire; closing earlier would lose it.
    private var goAwayFlushed = false
    private var closing = false
    private var peakOpenStreams = 0

    /// A connection counted in `registry`, whose graceful `GOAWAY`s wait at most `goAwayGracePeriodMilliseconds`
    /// for the streams they cover.
    init(
        channel: any Channel,
        registry: SimulatorConnectionRegistry,
        logger: Logger,
        goAwayGracePeriodMilliseconds: Int
    ) {
        self.channel = channel
        self.registry = registry
        self.logger = logger
        self.goAwayGracePeriod = .milliseconds(Int64(goAwayGracePeriodMilliseconds))
    }

    /// Whether the simulator has sent this connection a `GOAWAY`.
    var hasSentGoAway: Bool { self.goAwayLastStreamID != nil }

    /// Whether the connection is going away or closing, so that it serves no new stream.
    var isEnding: Bool { self.hasSentGoAway || self.closing }

    /// The streams open right now.
    var openStreamCount: Int { self.streams.count }

    /// The highest stream id this connection has served.
    var lastProcessedStreamID: HTTP2StreamID { self.highestStreamID }

    /// Registers a newly opened client stream; `false` when the connection is ending and must not serve it.
    func streamOpened(_ streamID: HTTP2StreamID) -> Bool {
        if self.isEnding {
            return false
        }
        self.streams.insert(streamID)
        self.highestStreamID = max(self.highestStreamID, streamID)
        let open = self.streams.count
        // Only a new per-connection peak can be a new global one; this keeps the shared lock off most requests.
        if open > self.peakOpenStreams {
            self.peakOpenStreams = open
            self.registry.recordOpenStreams(open)
        }
        return true
    }

    /// Forgets a closed stream, closing the connection once a graceful `GOAWAY` has drained.
    func streamClosed(_ streamID: HTTP2StreamID) {
        self.streams.remove(streamID)
        if self.goAwayFlushed, self.streams.isEmpty {
            self.close()
        }
    }

    /// The id of the stream opened just before `streamID`, for a `GOAWAY` that excludes `streamID`.
    func lastStreamID(before streamID: HTTP2StreamID) -> HTTP2StreamID {
        self.streams.filter { $0 < streamID }.max() ?? .rootStream
    }

    /// Sends `GOAWAY`, with `debugText` as its debug data when given, and ends the connection: at once, or
    /// (graceful) once the streams up to `lastStreamID` are answered, bounded by the grace period.
    func goAway(
        lastStreamID: HTTP2StreamID,
        errorCode: HTTP2ErrorCode = .noError,
        debugText: String? = nil,
        graceful: Bool = true
    ) {
        guard !self.closing else { return }
        if let previous = self.goAwayLastStreamID, previous <= lastStreamID, graceful {
            return
        }
        self.goAwayLastStreamID = lastStreamID
        self.registry.goAwaySent()
        let debugData = debugText.map { self.channel.allocator.buffer(string: $0) }
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: lastStreamID, errorCode: errorCode, opaqueData: debugData)
        )
        // nio-http2 closes the streams above `lastStreamID` itself while it processes the frame, before the frame is
        // written; the connection must not be closed from those stream closures, hence `goAwayFlushed`.
        self.channel.writeAndFlush(frame).assumeIsolated().whenComplete { _ in
            self.goAwayFlushed = true
            if !graceful || self.streams.isEmpty {
                self.close()
            }
        }
        if graceful {
            self.channel.eventLoop.assumeIsolated().scheduleTask(in: self.goAwayGracePeriod) { self.close() }
        }
    }

    /// Closes the TCP connection abruptly: `SO_LINGER` 0 makes the close send RST instead of FIN, and the close
    /// starts below the TLS handler so that not even a TLS `close_notify` goes out.
    func reset() {
        guard !self.closing else { return }
        self.closing = true
        let closeSocket = {
            if let tls = try? self.channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
                tls.close(promise: nil)
            } else {
                self.channel.close(promise: nil)
            }
        }
        if let provider = self.channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in closeSocket() }
        } else {
            closeSocket()
        }
    }

    /// Closes the connection (a FIN, after a TLS `close_notify`), once.
    func close() {
        guard !self.closing else { return }
        self.closing = true
        self.channel.close(promise: nil)
    }
}
