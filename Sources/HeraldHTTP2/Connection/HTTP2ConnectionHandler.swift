import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Manages one HTTP/2 connection from behind `NIOHTTP2Handler`: its streams, readiness, the
/// server's stream limit, GOAWAY, keepalive PING, stream deadlines, and reporting to the pool.
///
/// It sees every frame after nio-http2 has applied it. Streams are not child channels: each is an
/// ``HTTP2StreamHandler`` found by its stream ID, written to directly, which saves a channel, a
/// pipeline and their events per request. Writes of a burst are flushed once, and streams that end
/// within one read are reported to the pool together when the read completes.
///
/// It is nio-http2's frame delegate so that it notices the GOAWAY nio-http2 sends on a connection
/// error (nio-http2 leaves the channel open then). Decisions come from ``HTTP2ConnectionStateMachine``.
final class HTTP2ConnectionHandler: ChannelInboundHandler, NIOHTTP2FrameDelegate {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The shortest spacing between deadline sweeps.
    private static let sweepInterval = TimeAmount.milliseconds(10)

    let id: HTTP2ConnectionID
    private let settings: HTTP2ConnectionSettings
    private let delegate: any HTTP2ConnectionDelegate
    private let logger: Logger
    private let readyDeadline: NIODeadline
    private let pingData = HTTP2PingData(withInteger: .random(in: .min ... .max))
    private var machine: HTTP2ConnectionStateMachine
    private var context: ChannelHandlerContext?
    private var lastError: String?

    /// The inbound flow-control window kept open for the connection and for each stream (the
    /// HTTP/2 default, which our SETTINGS keep): refilled once half of it is used.
    private static let targetWindowSize = 65_535

    /// Streams not yet released, by ID. Deadlines are checked by sweeping them from one timer per
    /// connection, because cancelling a NIO scheduled task costs O(n) in the loop's pending
    /// timers, which would make a timer per stream the bottleneck.
    private var streams = HTTP2StreamTable<HTTP2StreamHandler>(minimumCapacity: 128)
    /// The ID of the next stream; client streams are odd and increasing (RFC 9113 §5.1.1).
    private var nextStreamID: Int32 = 1
    /// Whether a request's unique field went into the HPACK dynamic table: only the first one's
    /// does, so that the others send the name as an index (see ``HTTP2UniqueField``).
    private var uniqueFieldIndexed = false
    /// Whether frames were written since the last flush.
    private var flushPending = false
    /// Whether a read is in progress: stream releases wait for its end, to reach the pool at once.
    private var reading = false
    private var releasedWhileReading = 0
    private var retriesWhileReading: [HTTP2RequestContext] = []
    /// The stream being written, to which a write error nio-http2 reports at once belongs.
    private var opening: HTTP2StreamID?
    private var openingError: (any Error)?
    /// Whether nio-http2 sent GOAWAY for a connection error: it refuses new streams from then on.
    private var sentGoAway = false
    private var sweep: (deadline: NIODeadline, task: Scheduled<Void>)?
    private var keepaliveTask: Scheduled<Void>?
    private var pingTimeoutTask: Scheduled<Void>?
    private var readyTimeoutTask: Scheduled<Void>?

    /// Creates the handler of a connection being opened.
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
    /// before this handler hears of it.
    var closeReason: HTTP2ConnectionCloseReason? {
        if let reason = self.machine.closeReason {
            return reason
        }
        if let context, !context.channel.isActive {
            return .remoteClosed(self.lastError)
        }
        return nil
    }

    /// Whether the server declared, by GOAWAY, that it did not process `streamID`.
    func wasNotProcessed(_ streamID: HTTP2StreamID) -> Bool {
        self.machine.wasNotProcessed(streamID)
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.readyTimeoutTask = context.eventLoop.assumeIsolated().scheduleTask(deadline: self.readyDeadline) {
            if self.machine.readyTimeoutFired() {
                self.logger.debug("HTTP/2 connection not ready within the connect timeout")
                self.context?.close(promise: nil)
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.cancelTimers()
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // About five events per request, each tested by dynamic casts: the commonest first (window
        // updates, three per request; then stream closed and created, one each), and the TLS
        // handshake only while it can still come. The per-stream events end here: this is the last
        // handler, and passing each on to the pipeline's tail, which ignores it, costs a copy of
        // the event and two calls.
        if let window = event as? NIOHTTP2WindowUpdatedEvent {
            self.inboundWindowChanged(window, context: context)
            return
        } else if let closed = event as? StreamClosedEvent {
            self.streams[closed.streamID]?.closed(reason: closed.reason)
            return
        } else if event is NIOHTTP2StreamCreatedEvent {
            return
        } else if case .connecting = self.machine.state, case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event,
            self.machine.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol)
        {
            self.logger.debug("TLS handshake selected no h2", metadata: ["h2.alpn": "\(negotiatedProtocol ?? "none")"])
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        self.reading = true
        guard frame.streamID == .rootStream else {
            // Frames of streams already released (reset at their deadline) are ignored.
            self.streams[frame.streamID]?.received(frame.payload)
            return
        }
        switch frame.payload {
        case .settings(.settings(let settings)):
            self.receivedSettings(settings, context: context)
        case .goAway(let lastStreamID, let errorCode, let opaqueData):
            let reason = HTTP2GoAwayReason.describe(errorCode: errorCode, debugData: opaqueData)
            switch self.machine.receivedGoAway(lastStreamID: lastStreamID, reason: reason) {
            case .drain(let reason):
                self.logger.info(
                    "HTTP/2 server sent GOAWAY",
                    metadata: ["h2.goaway.reason": "\(reason)", "h2.goaway.last_stream_id": "\(lastStreamID)"]
                )
                self.delegate.connectionReceivedGoAway(self.id, reason: reason)
            case .close:
                context.close(promise: nil)
            case .none:
                break
            }
        case .ping(let data, ack: true) where data == self.pingData:
            if self.machine.receivedPingAck() {
                self.pingTimeoutTask?.cancel()
                self.pingTimeoutTask = nil
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Every read ends here, whichever stream it was for: this is the idle clock's input.
        self.machine.receivedData()
        self.reading = false
        self.reportReleases()
        self.flushIfPending()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A write of the stream being opened was refused (after GOAWAY, or a stream error).
        if let opening = self.opening {
            if let streamError = error as? NIOHTTP2Errors.StreamError, streamError.streamID == opening {
                self.openingError = self.openingError ?? streamError.baseError
                return
            }
            if error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
                self.openingError = self.openingError ?? error
                return
            }
        }
        // A stream error (nio-http2 resets the stream; its close event follows) must not close the
        // connection; real connection errors show up as a GOAWAY we send (see `wroteFrame`) or as a
        // closed channel.
        if let streamError = error as? NIOHTTP2Errors.StreamError, let stream = self.streams[streamError.streamID] {
            stream.receivedError(streamError.baseError)
            return
        }
        self.lastError = String(describing: error)
        self.logger.trace("HTTP/2 connection error", metadata: ["error": "\(error)"])
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.cancelTimers()
        self.reading = false
        // Streams still open end with the connection; the pool hears of them before of the connection.
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
        context.fireChannelInactive()
    }

    // MARK: NIOHTTP2FrameDelegate

    func wroteFrame(_ frame: HTTP2Frame) {
        guard case .goAway(_, let errorCode, _) = frame.payload, let context else { return }
        self.sentGoAway = true
        // The pool never sends GOAWAY: nio-http2 did, for a connection error, and keeps the channel open.
        // Close on the next tick: this callback runs inside nio-http2's write path.
        // By then `errorCaught` has recorded nio-http2's error, which explains more than the code.
        context.eventLoop.assumeIsolated().execute {
            self.close(reason: .protocolError(self.lastError.map { "\(errorCode.name): \($0)" } ?? errorCode.name))
        }
    }
}

// MARK: - Streams

extension HTTP2ConnectionHandler {
    /// Opens a stream for each request and flushes once.
    func openStreams(_ requests: some Sequence<HTTP2RequestContext>) {
        for request in requests {
            self.openStream(request)
        }
        self.flushIfPending()
    }

    /// Opens a stream for `request` and writes it (unflushed), or hands it straight back to the pool
    /// if this connection cannot take it now (closing, GOAWAY, or the server lowered its limit since
    /// the pool chose it).
    private func openStream(_ request: HTTP2RequestContext) {
        guard let context, self.canOpenStream, self.streams.count < self.machine.maxConcurrentStreams else {
            self.handBack(request)
            return
        }
        let streamID = HTTP2StreamID(self.nextStreamID)
        self.nextStreamID += 2
        let stream = HTTP2StreamHandler(request: request, streamID: streamID, connection: self)
        guard request.attach(NIOLoopBound(stream, eventLoop: context.eventLoop)) else {
            // Cancelled while being dispatched; skipping a stream ID is allowed.
            request.finish(.failure(.cancelled(mayHaveBeenProcessed: false)))
            self.delegate.streamFinished(on: self.id, retry: nil, connectionUsable: self.isUsable)
            return
        }
        self.register(stream)
        let indexingUniqueField = !self.uniqueFieldIndexed && request.request.uniqueField != nil
        let frames = stream.requestFrames(template: self.settings.headerTemplate, indexingUniqueField: indexingUniqueField)
        if indexingUniqueField {
            self.uniqueFieldIndexed = true
        }
        // nio-http2 reports a refused write through `errorCaught` before `write` returns.
        self.opening = streamID
        context.write(self.wrapOutboundOut(frames.headers), promise: nil)
        if let data = frames.data, self.openingError == nil {
            context.write(self.wrapOutboundOut(data), promise: nil)
        }
        self.opening = nil
        self.flushPending = true
        if let error = self.openingError {
            self.openingError = nil
            self.logger.trace("HTTP/2 stream could not be opened", metadata: ["error": "\(error)"])
            // Should the HEADERS have gone out, the reset ends the stream for the server; else
            // nio-http2 drops it as a reset of an idle stream.
            context.write(self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            stream.abandon()
        }
    }

    /// Resets a stream whose request was given up (deadline, cancellation, invalid response);
    /// nio-http2 then closes it, which releases it.
    func reset(_ stream: HTTP2StreamHandler) {
        guard let context, !stream.released else { return }
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: stream.streamID, payload: .rstStream(.cancel))), promise: nil)
        self.flushPending = true
        self.flushIfPending()
    }

    /// Returns a request the connection could not open a stream for to the pool, unsent.
    func handBack(_ request: HTTP2RequestContext) {
        if request.noteUnsentBounce() {
            self.delegate.streamFinished(on: self.id, retry: request, connectionUsable: self.isUsable)
        } else {
            request.finish(.failure(.connectionClosed("no connection could take the request")))
            self.delegate.streamFinished(on: self.id, retry: nil, connectionUsable: self.isUsable)
        }
    }

    /// Whether the connection can still take streams.
    var isUsable: Bool {
        self.canOpenStream && (self.context?.channel.isActive ?? false)
    }

    /// Whether a new stream may be opened: ready, no GOAWAY either way, stream IDs left.
    private var canOpenStream: Bool {
        // The last client stream ID is 2^31 − 1; a connection that used them all is drained.
        self.machine.canOpenStreams && !self.sentGoAway && self.nextStreamID < Int32.max - 1
    }

    /// A stream is done with this connection; tell the pool (with the request, if it must be
    /// retried) now, or at the end of the current read together with the others.
    func streamReleased(_ stream: HTTP2StreamHandler, retry: HTTP2RequestContext?) {
        self.streams.removeValue(forKey: stream.streamID)
        if self.reading {
            self.releasedWhileReading += 1
            if let retry { self.retriesWhileReading.append(retry) }
        } else {
            self.delegate.streamFinished(on: self.id, retry: retry, connectionUsable: self.isUsable)
        }
    }

    private func reportReleases() {
        guard self.releasedWhileReading > 0 else { return }
        let count = self.releasedWhileReading
        let retries = self.retriesWhileReading
        self.releasedWhileReading = 0
        self.retriesWhileReading = []
        self.delegate.streamsFinished(on: self.id, count: count, retries: retries, connectionUsable: self.isUsable)
    }

    private func flushIfPending() {
        guard self.flushPending, !self.reading, let context else { return }
        self.flushPending = false
        context.flush()
    }

    /// Keeps the inbound windows open: nio-http2 leaves WINDOW_UPDATE to the layer above it.
    private func inboundWindowChanged(_ event: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let size = event.inboundWindowSize, size <= Self.targetWindowSize / 2 else { return }
        if event.streamID != .rootStream {
            guard let stream = self.streams[event.streamID], stream.isPending else { return }
        }
        let increment = Self.targetWindowSize - size
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: event.streamID, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
        self.flushPending = true
        self.flushIfPending()
    }

    private func register(_ stream: HTTP2StreamHandler) {
        self.streams.updateValue(stream, forKey: stream.streamID)
        if self.sweep.map({ stream.deadline < $0.deadline }) ?? true {
            self.armSweep(at: stream.deadline)
        }
    }

    private func armSweep(at deadline: NIODeadline) {
        guard let context else { return }
        self.sweep?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.sweepDeadlines()
        }
        self.sweep = (deadline, task)
    }

    private func sweepDeadlines() {
        self.sweep = nil
        let now = NIODeadline.now()
        var expired: [HTTP2StreamHandler] = []
        var earliest: NIODeadline?
        for stream in self.streams.values where stream.isPending {
            if stream.deadline <= now {
                expired.append(stream)
            } else {
                earliest = min(earliest ?? stream.deadline, stream.deadline)
            }
        }
        // Expire after the scan: resetting a stream may release it, which edits `streams`.
        for stream in expired {
            stream.deadlineExceeded()
        }
        if let earliest {
            self.armSweep(at: max(earliest, now + Self.sweepInterval))
        }
    }
}

// MARK: - Settings, keepalive, closing

extension HTTP2ConnectionHandler {
    /// Closes the connection (pool request or detected error); in-flight streams fail with `reason`.
    func close(reason: HTTP2ConnectionCloseReason) {
        guard self.machine.closeRequested(reason) else { return }
        self.logger.debug("closing HTTP/2 connection", metadata: ["h2.close_reason": "\(reason)"])
        self.context?.close(promise: nil)
    }

    private func receivedSettings(_ settings: HTTP2Settings, context: ChannelHandlerContext) {
        var maxConcurrentStreams: UInt32?
        for setting in settings where setting.parameter == .maxConcurrentStreams {
            maxConcurrentStreams = UInt32(clamping: setting.value)
        }
        switch self.machine.receivedSettings(maxConcurrentStreams: maxConcurrentStreams) {
        case .ready(let limit):
            self.readyTimeoutTask?.cancel()
            self.readyTimeoutTask = nil
            self.scheduleKeepalive(context: context)
            self.logger.debug("HTTP/2 connection ready", metadata: ["h2.max_concurrent_streams": "\(limit)"])
            self.delegate.connectionReady(self.id, maxConcurrentStreams: limit)
        case .maxConcurrentStreamsChanged(let limit):
            self.logger.debug("HTTP/2 server changed its stream limit", metadata: ["h2.max_concurrent_streams": "\(limit)"])
            self.delegate.connectionMaxConcurrentStreamsChanged(self.id, to: limit)
        case .none:
            break
        }
    }

    private func scheduleKeepalive(context: ChannelHandlerContext) {
        self.keepaliveTask = context.eventLoop.assumeIsolated().scheduleTask(in: self.settings.idlePingInterval) {
            self.keepaliveFired()
        }
    }

    private func keepaliveFired() {
        guard let context else { return }
        if self.machine.keepaliveTimerFired() {
            context.writeAndFlush(
                self.wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(self.pingData, ack: false))),
                promise: nil
            )
            self.pingTimeoutTask = context.eventLoop.assumeIsolated().scheduleTask(in: self.settings.pingTimeout) {
                if self.machine.pingTimeoutFired() {
                    self.logger.info("HTTP/2 server did not answer PING; closing the connection")
                    self.context?.close(promise: nil)
                }
            }
        }
        switch self.machine.state {
        case .ready, .draining:
            self.scheduleKeepalive(context: context)
        case .connecting, .closing, .closed:
            break
        }
    }

    private func cancelTimers() {
        self.readyTimeoutTask?.cancel()
        self.readyTimeoutTask = nil
        self.keepaliveTask?.cancel()
        self.keepaliveTask = nil
        self.pingTimeoutTask?.cancel()
        self.pingTimeoutTask = nil
        self.sweep?.task.cancel()
        self.sweep = nil
    }
}
