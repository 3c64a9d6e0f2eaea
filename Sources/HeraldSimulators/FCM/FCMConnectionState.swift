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

/// Per-connection state: its open streams, and whether it is going away.
///
/// Lives on the connection's event loop; every method must be called there (it is reached through `NIOLoopBound`).
final class FCMConnectionState {
    let channel: any Channel
    let store: FCMSimulatorStore
    let logger: Logger
    private let goAwayGracePeriod: TimeAmount

    private var streams: Set<HTTP2StreamID> = []
    private var highestStreamID = HTTP2StreamID.rootStream
    private var goAwayLastStreamID: HTTP2StreamID?
    /// Whether the `GOAWAY` is on the wire; closing earlier would lose it.
    private var goAwayFlushed = false
    private var closing = false
    private var peakOpenStreams = 0

    init(channel: any Channel, store: FCMSimulatorStore, configuration: FCMSimulator.Configuration) {
        self.channel = channel
        self.store = store
        self.logger = configuration.logger
        self.goAwayGracePeriod = .milliseconds(Int64(configuration.goAwayGracePeriodMilliseconds))
    }

    /// Registers a newly opened client stream; `false` when the connection is going away and must not serve it.
    func streamOpened(_ streamID: HTTP2StreamID) -> Bool {
        if self.goAwayLastStreamID != nil || self.closing {
            return false
        }
        self.streams.insert(streamID)
        self.highestStreamID = max(self.highestStreamID, streamID)
        let open = self.streams.count
        // Only a new per-connection peak can be a new global one; this keeps the shared lock off most requests.
        if open > self.peakOpenStreams {
            self.peakOpenStreams = open
            self.store.updateStatistics { $0.maxConcurrentStreamsObserved = max($0.maxConcurrentStreamsObserved, open) }
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

    /// The highest stream id this connection has served.
    var lastProcessedStreamID: HTTP2StreamID { self.highestStreamID }

    /// Sends `GOAWAY` (`NO_ERROR`) and ends the connection once the streams up to `lastStreamID` are answered,
    /// bounded by the configured grace period.
    func goAway(lastStreamID: HTTP2StreamID) {
        guard !self.closing else { return }
        if let previous = self.goAwayLastStreamID, previous <= lastStreamID {
            return
        }
        self.goAwayLastStreamID = lastStreamID
        self.store.updateStatistics { $0.goAwaysSent += 1 }
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil)
        )
        // nio-http2 closes the streams above `lastStreamID` itself while it processes the frame, before the frame is
        // written; the connection must not be closed from those stream closures, hence `goAwayFlushed`.
        self.channel.writeAndFlush(frame).assumeIsolated().whenComplete { _ in
            self.goAwayFlushed = true
            if self.streams.isEmpty {
                self.close()
            }
        }
        self.channel.eventLoop.assumeIsolated().scheduleTask(in: self.goAwayGracePeriod) { self.close() }
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

    private func close() {
        guard !self.closing else { return }
        self.closing = true
        self.channel.close(promise: nil)
    }
}
