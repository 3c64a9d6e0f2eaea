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

/// Per-connection state: how it authenticated, the stream limit it was told, and its open streams.
///
/// Lives on the connection's event loop; every method must be called there (it is reached through `NIOLoopBound`).
final class APNsConnectionState {
    /// What `SETTINGS_MAX_CONCURRENT_STREAMS` nio-http2 itself is configured with. nio-http2 answers a violation
    /// with a bare `GOAWAY`, but APNs sends debug data, so the real limit is enforced here and this ceiling only
    /// keeps nio-http2 out of the way; ``MaxConcurrentStreamsAdvertiser`` puts the advertised value on the wire.
    static let nioStreamCeiling = Int(Int32.max)

    /// Debug data of the `GOAWAY` for a client that opens more streams than advertised (§1.7).
    static let maxStreamsViolationText = "Maximum active streams violated for this endpoint."

    let channel: any Channel
    let store: APNsSimulatorStore
    let logger: Logger
    /// The topic from the client certificate's subject UID; non-`nil` makes this a certificate connection.
    let certificateTopic: String?
    private let authenticatedMaxConcurrentStreams: Int
    private let goAwayGracePeriod: TimeAmount

    /// The value ``MaxConcurrentStreamsAdvertiser`` writes into outgoing `SETTINGS` frames.
    private(set) var advertisedMaxConcurrentStreams: Int
    /// The provider key bound at the first accepted token (§1.5).
    var boundKeyID: String?
    private var raisedLimit = false
    private var streams: Set<HTTP2StreamID> = []
    private var highestStreamID = HTTP2StreamID.rootStream
    private var goAwayLastStreamID: HTTP2StreamID?
    /// Whether the `GOAWAY` is on the wire; closing earlier would lose it.
    private var goAwayFlushed = false
    private var closing = false
    /// Set at the first stream over the limit, so a client that opens several is reported and answered once.
    private var violated = false
    private var peakOpenStreams = 0

    init(
        channel: any Channel,
        store: APNsSimulatorStore,
        configuration: APNsSimulator.Configuration,
        certificateTopic: String?
    ) {
        self.channel = channel
        self.store = store
        self.logger = configuration.logger
        self.certificateTopic = certificateTopic
        self.authenticatedMaxConcurrentStreams = configuration.authenticatedMaxConcurrentStreams
        self.goAwayGracePeriod = .milliseconds(Int64(configuration.goAwayGracePeriodMilliseconds))
        // Certificate connections are trusted from the handshake on, so they never go through the 1-stream phase.
        self.advertisedMaxConcurrentStreams =
            certificateTopic == nil
            ? configuration.initialMaxConcurrentStreams : configuration.authenticatedMaxConcurrentStreams
        self.raisedLimit = certificateTopic != nil
    }

    /// Registers a newly opened client stream; `false` when it exceeds the advertised limit, in which case the
    /// connection is being ended with `GOAWAY PROTOCOL_ERROR` and the stream must not be served.
    func streamOpened(_ streamID: HTTP2StreamID) -> Bool {
        if self.goAwayLastStreamID != nil || self.closing || self.violated {
            return false
        }
        guard self.streams.count < self.advertisedMaxConcurrentStreams else {
            self.violated = true
            let lastStreamID = self.highestStreamID
            self.logger.debug(
                "Client exceeded SETTINGS_MAX_CONCURRENT_STREAMS",
                metadata: ["limit": "\(self.advertisedMaxConcurrentStreams)", "stream": "\(streamID)"]
            )
            self.store.updateStatistics { $0.maxConcurrentStreamsViolations += 1 }
            // Writing to the connection from inside nio-http2's frame processing would re-enter it; defer.
            self.channel.eventLoop.assumeIsolated().execute {
                self.goAway(
                    lastStreamID: lastStreamID,
                    errorCode: .protocolError,
                    debugText: Self.maxStreamsViolationText,
                    graceful: false
                )
            }
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

    /// Called for every request whose provider token was valid: the first one raises the stream limit (§1.5).
    func providerTokenAccepted() {
        guard !self.raisedLimit else { return }
        self.raisedLimit = true
        self.advertisedMaxConcurrentStreams = self.authenticatedMaxConcurrentStreams
        let settings = HTTP2Settings([
            HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.nioStreamCeiling)
        ])
        self.channel.writeAndFlush(
            HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings))), promise: nil)
        self.store.updateStatistics { $0.maxConcurrentStreamsRaises += 1 }
    }

    /// The id of the stream opened just before `streamID`, for a `GOAWAY` that excludes `streamID`.
    func lastStreamID(before streamID: HTTP2StreamID) -> HTTP2StreamID {
        self.streams.filter { $0 < streamID }.max() ?? .rootStream
    }

    /// The highest stream id this connection has served.
    var lastProcessedStreamID: HTTP2StreamID { self.highestStreamID }

    /// Sends `GOAWAY` and ends the connection: at once, or (graceful) once the streams up to `lastStreamID` are
    /// answered, bounded by the configured grace period.
    func goAway(lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugText: String, graceful: Bool) {
        guard !self.closing else { return }
        if let previous = self.goAwayLastStreamID, previous <= lastStreamID, graceful {
            return
        }
        self.goAwayLastStreamID = lastStreamID
        self.store.updateStatistics { $0.goAwaysSent += 1 }
        var debugData = self.channel.allocator.buffer(capacity: debugText.utf8.count)
        debugData.writeString(debugText)
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

    /// Called when a `GOAWAY` frame is written: one the simulator did not send itself came from nio-http2 for a
    /// protocol error, after which APNs drops the connection, so close it once the frame is out.
    func goAwayWritten(_ written: EventLoopFuture<Void>) {
        guard self.goAwayLastStreamID == nil else { return }
        written.assumeIsolated().whenComplete { _ in self.close() }
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
