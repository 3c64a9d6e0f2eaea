import Logging
import NIOCore
import NIOHTTP2

/// The engine-independent half of one HTTP/2 connection: its streams, readiness, the server's
/// stream limit, GOAWAY, keepalive PING, stream deadlines, and reporting to the pool.
///
/// Each engine's channel handler owns one and feeds it what it decoded (SETTINGS, GOAWAY, PING
/// acknowledgements, reads starting and ending, the channel going away), routes stream frames to
/// the ``HTTP2StreamHandler`` it finds here by stream ID, and puts on the wire what the core asks
/// through ``HTTP2ConnectionEngine``. Decisions come from ``HTTP2ConnectionStateMachine``; stream
/// outcomes from ``HTTP2StreamHandler``.
///
/// Writes of a burst are flushed once, and streams that end within one read are reported to the
/// pool together when the read completes. Lives on the channel's event loop.
final class HTTP2ConnectionCore {
    /// The shortest spacing between deadline sweeps.
    static let sweepInterval = TimeAmount.milliseconds(10)

    /// The connection's ID in the pool.
    let id: HTTP2ConnectionID
    /// The pool's shared connection settings.
    let settings: HTTP2ConnectionSettings
    /// The pool, which hears of readiness, limits, GOAWAY, closure and released streams.
    let delegate: any HTTP2ConnectionDelegate
    /// Carries the connection's metadata.
    let logger: Logger
    /// When the server's first SETTINGS frame must have arrived.
    private let readyDeadline: NIODeadline
    /// The payload of our keepalive PINGs, to recognise their acknowledgements.
    let pingData = UInt64.random(in: .min ... .max)
    /// Readiness, the server's limit, GOAWAY and keepalive decisions.
    var machine: HTTP2ConnectionStateMachine
    /// The engine handler's context and the engine, while the handler is in the pipeline. The
    /// engine is its handler, so this reference cycle lasts exactly as long as the pipeline holds
    /// the handler: `handlerRemoved` ends it.
    var attachment: (context: ChannelHandlerContext, engine: any HTTP2ConnectionEngine)?
    /// The last error seen on the channel, to explain a close that follows it.
    var lastError: String?

    /// Streams not yet released, by ID. Deadlines are checked by sweeping them from one timer per
    /// connection, because cancelling a NIO scheduled task costs O(n) in the loop's pending
    /// timers, which would make a timer per stream the bottleneck.
    var streams = HTTP2StreamTable<HTTP2StreamHandler>(minimumCapacity: 128)
    /// Whether a request's unique field went into the HPACK dynamic table: only the first one's
    /// does, so that the others send the name as an index (see ``HTTP2UniqueField``).
    var uniqueFieldIndexed = false
    /// Whether frames were written since the last flush.
    var flushPending = false
    /// Whether a read is in progress: stream releases wait for its end, to reach the pool at once.
    var reading = false
    /// Streams released during the current read, reported when it completes.
    var releasedWhileReading = 0
    /// The requests among them to send again, in order.
    var retriesWhileReading: [HTTP2RequestContext] = []
    /// Whether the engine sent GOAWAY for a connection error: it refuses new streams from then on.
    var sentGoAway = false
    /// The next deadline sweep, armed for the earliest deadline of the streams in flight.
    var sweep: (deadline: NIODeadline, task: Scheduled<Void>)?
    /// The next idleness check (once per idle PING interval).
    var keepaliveTask: Scheduled<Void>?
    /// Closes the connection unless our PING is answered first.
    var pingTimeoutTask: Scheduled<Void>?
    /// Closes the connection unless the server's first SETTINGS frame arrives first.
    var readyTimeoutTask: Scheduled<Void>?

    /// Creates the core of a connection being opened.
    ///
    /// - Parameters:
    ///   - id: The connection's ID in the pool.
    ///   - settings: The pool's shared connection settings.
    ///   - delegate: Receives readiness, limit changes, GOAWAY, closure and stream releases.
    ///   - readyDeadline: When the connection must have received the server's SETTINGS.
    ///   - logger: Carries the connection's metadata.
    init(
        id: HTTP2ConnectionID,
        settings: HTTP2ConnectionSettings,
        delegate: any HTTP2ConnectionDelegate,
        readyDeadline: NIODeadline,
        logger: Logger
    ) {
        self.id = id
        self.settings = settings
        self.delegate = delegate
        self.readyDeadline = readyDeadline
        self.logger = logger
        self.machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: settings.maxConcurrentStreamsCap)
    }

    /// How often a request the server declined may be sent again.
    var maxTransparentRetries: Int {
        self.settings.maxTransparentRetries
    }

    /// Why the connection is closing or draining; also set once the channel is inactive, even
    /// before the engine hears of it.
    var closeReason: HTTP2ConnectionCloseReason? {
        if let reason = self.machine.closeReason {
            return reason
        }
        if let context = self.attachment?.context, !context.channel.isActive {
            return .remoteClosed(self.lastError)
        }
        return nil
    }

    /// Whether the server declared, by GOAWAY, that it did not process `streamID`.
    func wasNotProcessed(_ streamID: HTTP2StreamID) -> Bool {
        self.machine.wasNotProcessed(streamID)
    }

    /// Whether the TLS handshake and the server's first SETTINGS frame are still awaited.
    var isConnecting: Bool {
        self.machine.state == .connecting
    }
}

// MARK: - Channel events, as the engine handler sees them

extension HTTP2ConnectionCore {
    /// The engine handler joined the pipeline: start the ready timeout.
    func attach(context: ChannelHandlerContext, engine: any HTTP2ConnectionEngine) {
        self.attachment = (context, engine)
        self.readyTimeoutTask = context.eventLoop.assumeIsolated().scheduleTask(deadline: self.readyDeadline) {
            if self.machine.readyTimeoutFired() {
                self.logger.debug("HTTP/2 connection not ready within the connect timeout")
                self.attachment?.context.close(promise: nil)
            }
        }
    }

    /// The engine handler left the pipeline: no timer may fire and nothing may be written any more.
    func detach() {
        self.cancelTimers()
        self.attachment = nil
    }

    /// The TLS handshake completed; a server that did not select `h2` is refused.
    func tlsHandshakeCompleted(negotiatedProtocol: String?) {
        guard self.machine.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol) else { return }
        self.logger.debug("TLS handshake selected no h2", metadata: ["h2.alpn": "\(negotiatedProtocol ?? "none")"])
        self.attachment?.context.close(promise: nil)
    }

    /// Bytes or frames are being read: releases wait for ``readCompleted()``.
    func readStarted() {
        self.reading = true
    }

    /// A read ended: report the streams it released together, then flush what it caused.
    func readCompleted() {
        // Every read ends here, whichever stream it was for: this is the idle clock's input.
        self.machine.receivedData()
        self.reading = false
        self.reportReleases()
        self.flushIfPending()
    }

    /// Records an error seen on the channel, to explain a close that follows it.
    func recordError(_ description: String) {
        self.lastError = description
    }

    /// The channel became inactive: streams still open end with it, then the pool hears of the connection.
    func channelInactive() {
        self.cancelTimers()
        self.reading = false
        for stream in self.streams.values {
            stream.connectionClosed()
        }
        self.reportReleases()
        if let closed = self.machine.channelInactive(error: self.lastError) {
            if closed.wasReady {
                self.logger.debug("HTTP/2 connection closed", metadata: ["h2.close_reason": "\(closed.reason)"])
            } else {
                self.logger.debug("HTTP/2 connection failed before it was ready", metadata: ["h2.close_reason": "\(closed.reason)"])
            }
            self.delegate.connectionClosed(self.id, reason: closed.reason, wasReady: closed.wasReady)
        }
    }
}

// MARK: - Connection frames, as the engine decoded them

extension HTTP2ConnectionCore {
    /// A SETTINGS frame (not an acknowledgement) arrived and was applied by the engine.
    ///
    /// - Parameter maxConcurrentStreams: Its `SETTINGS_MAX_CONCURRENT_STREAMS`, `nil` when absent.
    func receivedSettings(maxConcurrentStreams: UInt32?) {
        switch self.machine.receivedSettings(maxConcurrentStreams: maxConcurrentStreams) {
        case .ready(let limit):
            self.readyTimeoutTask?.cancel()
            self.readyTimeoutTask = nil
            self.scheduleKeepalive()
            self.logger.debug("HTTP/2 connection ready", metadata: ["h2.max_concurrent_streams": "\(limit)"])
            self.delegate.connectionReady(self.id, maxConcurrentStreams: limit)
        case .maxConcurrentStreamsChanged(let limit):
            self.logger.debug("HTTP/2 server changed its stream limit", metadata: ["h2.max_concurrent_streams": "\(limit)"])
            self.delegate.connectionMaxConcurrentStreamsChanged(self.id, to: limit)
        case .none:
            break
        }
    }

    /// A GOAWAY frame arrived.
    ///
    /// - Parameters:
    ///   - lastStreamID: The highest stream the server may have processed.
    ///   - errorCode: The frame's error code.
    ///   - debugData: The frame's opaque debug data.
    func receivedGoAway(lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugData: ByteBuffer?) {
        let reason = HTTP2GoAwayReason.describe(errorCode: errorCode, debugData: debugData)
        switch self.machine.receivedGoAway(lastStreamID: lastStreamID, reason: reason) {
        case .drain(let reason):
            self.logger.info(
                "HTTP/2 server sent GOAWAY",
                metadata: ["h2.goaway.reason": "\(reason)", "h2.goaway.last_stream_id": "\(lastStreamID)"]
            )
            self.delegate.connectionReceivedGoAway(self.id, reason: reason)
        case .close:
            self.attachment?.context.close(promise: nil)
        case .none:
            break
        }
    }

    /// A PING acknowledgement arrived; only ours (carrying ``pingData``) counts.
    func receivedPingAck(_ data: UInt64) {
        guard data == self.pingData, self.machine.receivedPingAck() else { return }
        self.pingTimeoutTask?.cancel()
        self.pingTimeoutTask = nil
    }

    /// The engine sent GOAWAY for a connection error it detected, and leaves the channel open:
    /// close it on the next tick (this runs inside the engine's write path), with the error the
    /// engine reported, which explains more than the code.
    func engineSentGoAway(errorCode: HTTP2ErrorCode) {
        guard let context = self.attachment?.context else { return }
        self.sentGoAway = true
        context.eventLoop.assumeIsolated().execute {
            self.close(reason: .protocolError(self.lastError.map { "\(errorCode.name): \($0)" } ?? errorCode.name))
        }
    }

    /// Closes the connection (pool request or detected error); in-flight streams fail with `reason`.
    func close(reason: HTTP2ConnectionCloseReason) {
        guard self.machine.closeRequested(reason) else { return }
        self.logger.debug("closing HTTP/2 connection", metadata: ["h2.close_reason": "\(reason)"])
        self.attachment?.context.close(promise: nil)
    }
}
