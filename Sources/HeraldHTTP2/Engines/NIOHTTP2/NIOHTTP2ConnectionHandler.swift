import NIOCore
import NIOHTTP2
import NIOTLS

/// The swift-nio-http2 engine: sits behind `NIOHTTP2Handler`, turns its frames and events into
/// calls on the connection's ``HTTP2ConnectionCore`` and its streams, and writes frames for it.
///
/// It sees every frame after nio-http2 has applied it. Streams are not child channels: each is an
/// ``HTTP2StreamHandler`` found by its stream ID, written to directly, which saves a channel, a
/// pipeline and their events per request.
///
/// It is nio-http2's frame delegate so that it notices the GOAWAY nio-http2 sends on a connection
/// error (nio-http2 leaves the channel open then).
final class NIOHTTP2ConnectionHandler: ChannelInboundHandler, NIOHTTP2FrameDelegate {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The inbound flow-control window kept open for the connection and for each stream (the
    /// HTTP/2 default, which our SETTINGS keep): refilled once half of it is used.
    private static let targetWindowSize = 65_535

    /// The engine-independent connection.
    let core: HTTP2ConnectionCore
    private var context: ChannelHandlerContext?
    /// The ID of the next stream; client streams are odd and increasing (RFC 9113 §5.1.1).
    private var nextID: Int32 = 1
    /// The stream being written, to which a write error nio-http2 reports at once belongs.
    private var opening: HTTP2StreamID?
    private var openingError: (any Error)?

    /// Creates the engine of a connection whose logic is `core`.
    init(core: HTTP2ConnectionCore) {
        self.core = core
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.core.attach(context: context, engine: self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.core.detach()
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
            self.core.streams[closed.streamID]?.closed(reason: closed.reason)
            return
        } else if event is NIOHTTP2StreamCreatedEvent {
            return
        } else if self.core.isConnecting, case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event {
            self.core.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        self.core.readStarted()
        guard frame.streamID == .rootStream else {
            // Frames of streams already released (reset at their deadline) are ignored.
            self.core.streams[frame.streamID]?.received(frame.payload)
            return
        }
        switch frame.payload {
        case .settings(.settings(let settings)):
            var maxConcurrentStreams: UInt32?
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                maxConcurrentStreams = UInt32(clamping: setting.value)
            }
            self.core.receivedSettings(maxConcurrentStreams: maxConcurrentStreams)
        case .goAway(let lastStreamID, let errorCode, let opaqueData):
            self.core.receivedGoAway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: opaqueData)
        case .ping(let data, ack: true):
            self.core.receivedPingAck(data.integer)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.core.readCompleted()
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
        if let streamError = error as? NIOHTTP2Errors.StreamError, let stream = self.core.streams[streamError.streamID] {
            if streamError.baseError is NIOHTTP2Errors.CreatedStreamAfterGoaway {
                stream.receivedError(.notSentAfterGoAway)
            } else {
                stream.receivedError(.protocolError(String(describing: streamError.baseError)))
            }
            return
        }
        self.core.recordError(String(describing: error))
        self.core.logger.trace("HTTP/2 connection error", metadata: ["error": "\(error)"])
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.core.channelInactive()
        context.fireChannelInactive()
    }

    // MARK: NIOHTTP2FrameDelegate

    func wroteFrame(_ frame: HTTP2Frame) {
        guard case .goAway(_, let errorCode, _) = frame.payload else { return }
        // The pool never sends GOAWAY: nio-http2 did, for a connection error.
        self.core.engineSentGoAway(errorCode: errorCode)
    }

    /// Keeps the inbound windows open: nio-http2 leaves WINDOW_UPDATE to the layer above it.
    private func inboundWindowChanged(_ event: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let size = event.inboundWindowSize, size <= Self.targetWindowSize / 2 else { return }
        if event.streamID != .rootStream {
            guard let stream = self.core.streams[event.streamID], stream.isPending else { return }
        }
        let increment = Self.targetWindowSize - size
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: event.streamID, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
        self.core.flushPending = true
        self.core.flushIfPending()
    }
}

// MARK: - HTTP2ConnectionEngine

extension NIOHTTP2ConnectionHandler: HTTP2ConnectionEngine {
    var nextStreamID: HTTP2StreamID? {
        // The last client stream ID is 2^31 − 1; a connection that used them all is drained.
        self.nextID < Int32.max - 1 ? HTTP2StreamID(self.nextID) : nil
    }

    func writeRequest(of stream: HTTP2StreamHandler, indexingUniqueField: Bool) -> Bool {
        guard let context else { return false }
        self.nextID += 2
        let frames = stream.requestFrames(template: self.core.settings.headerTemplate, indexingUniqueField: indexingUniqueField)
        // nio-http2 reports a refused write through `errorCaught` before `write` returns.
        self.opening = stream.streamID
        context.write(self.wrapOutboundOut(frames.headers), promise: nil)
        if let data = frames.data, self.openingError == nil {
            context.write(self.wrapOutboundOut(data), promise: nil)
        }
        self.opening = nil
        guard let error = self.openingError else { return true }
        self.openingError = nil
        self.core.logger.trace("HTTP/2 stream could not be opened", metadata: ["error": "\(error)"])
        // Should the HEADERS have gone out, the reset ends the stream for the server; else
        // nio-http2 drops it as a reset of an idle stream.
        context.write(self.wrapOutboundOut(HTTP2Frame(streamID: stream.streamID, payload: .rstStream(.cancel))), promise: nil)
        return false
    }

    func writeReset(_ streamID: HTTP2StreamID) {
        self.context?.write(self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
    }

    func writePing(_ data: UInt64) {
        self.context?.write(self.wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: data), ack: false))), promise: nil)
    }

    func flush() {
        self.context?.flush()
    }
}
