import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Manages one HTTP/2 connection from behind `NIOHTTP2Handler`: readiness, the server's stream
/// limit, GOAWAY, keepalive PING, stream deadlines, and reporting to the pool.
///
/// It sees root-stream frames (SETTINGS, GOAWAY, PING) after nio-http2 has applied them, and it is
/// nio-http2's frame delegate so that it notices the GOAWAY nio-http2 sends on a connection error
/// (nio-http2 leaves the channel open then). Decisions come from ``HTTP2ConnectionStateMachine``.
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

    /// Streams not yet released; each knows its index. Deadlines are checked by sweeping this list
    /// from one timer per connection, because cancelling a NIO scheduled task costs O(n) in the
    /// loop's pending timers, which would make a timer per stream the bottleneck.
    private var streams: [HTTP2StreamHandler] = []
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

    /// The template for request headers.
    var headerTemplate: HTTP2HeaderTemplate {
        self.settings.headerTemplate
    }

    /// How often a request the server declined may be sent again.
    var maxTransparentRetries: Int {
        self.settings.maxTransparentRetries
    }

    /// Why the connection is closing or draining; also set once the channel is inactive, even
    /// before this handler hears of it (stream channels close first).
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
        if case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event,
            self.machine.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol)
        {
            self.logger.debug("TLS handshake selected no h2", metadata: ["h2.alpn": "\(negotiatedProtocol ?? "none")"])
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
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
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Stream errors also surface here "for vestigial reasons" and must not close the connection;
        // real connection errors show up as a GOAWAY we send (see `wroteFrame`) or as a closed channel.
        self.lastError = String(describing: error)
        self.logger.trace("HTTP/2 connection error", metadata: ["error": "\(error)"])
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.cancelTimers()
        // Stream channels have already closed and released themselves; what remains never got a channel.
        for stream in self.streams {
            stream.connectionClosedBeforeAttach()
        }
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
    /// Opens a stream for `request`, or hands it straight back to the pool if this connection cannot
    /// take it now (closing, GOAWAY, or the server lowered its limit since the pool chose it).
    func openStream(_ request: HTTP2RequestContext, multiplexer: NIOHTTP2Handler.StreamMultiplexer) {
        guard let context, self.machine.canOpenStreams, self.streams.count < self.machine.maxConcurrentStreams else {
            self.handBack(request)
            return
        }
        let handler = HTTP2StreamHandler(request: request, connection: self)
        let boundHandler = NIOLoopBound(handler, eventLoop: context.eventLoop)
        guard request.attach(boundHandler) else {
            // Cancelled while being dispatched.
            request.finish(.failure(.cancelled(mayHaveBeenProcessed: false)))
            self.delegate.streamFinished(on: self.id, retry: nil, connectionUsable: self.isUsable)
            return
        }
        self.register(handler)
        multiplexer.createStreamChannel(promise: nil) { channel in
            let handler = boundHandler.value
            // The channel is created a tick later: the connection may have stopped taking streams.
            guard handler.isPending, handler.connectionAcceptsStreams else {
                handler.abandon()
                return channel.eventLoop.makeFailedFuture(ChannelError.alreadyClosed)
            }
            do {
                try channel.pipeline.syncOperations.addHandler(handler)
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                handler.abandon()
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
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
        self.machine.canOpenStreams && (self.context?.channel.isActive ?? false)
    }

    /// A stream is done with this connection; tell the pool (with the request, if it must be retried).
    func streamReleased(_ stream: HTTP2StreamHandler, retry: HTTP2RequestContext?) {
        self.unregister(stream)
        self.delegate.streamFinished(on: self.id, retry: retry, connectionUsable: self.isUsable)
    }

    private func register(_ stream: HTTP2StreamHandler) {
        stream.registryIndex = self.streams.count
        self.streams.append(stream)
        if self.sweep.map({ stream.deadline < $0.deadline }) ?? true {
            self.armSweep(at: stream.deadline)
        }
    }

    private func unregister(_ stream: HTTP2StreamHandler) {
        let index = stream.registryIndex
        guard index >= 0, index < self.streams.count, self.streams[index] === stream else { return }
        let last = self.streams.removeLast()
        if index < self.streams.count {
            self.streams[index] = last
            last.registryIndex = index
        }
        stream.registryIndex = -1
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
        for stream in self.streams where stream.isPending {
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
