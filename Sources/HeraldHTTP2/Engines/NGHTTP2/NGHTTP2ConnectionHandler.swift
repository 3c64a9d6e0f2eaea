import CNGHTTP2
import NIOCore
import NIOHTTP2
import NIOTLS

/// The nghttp2 engine: one libnghttp2 client session per connection, fed the bytes TLS decrypted
/// and drained into one buffer per flush, with the connection's logic in ``HTTP2ConnectionCore``.
///
/// nghttp2 frames, compresses headers (HPACK) and keeps flow-control windows (it sends
/// WINDOW_UPDATE, SETTINGS and PING acknowledgements itself); its callbacks
/// (`NGHTTP2ConnectionHandler+Callbacks.swift`) turn what it decoded into calls on the core and on
/// the ``HTTP2StreamHandler`` found by stream ID. Every nghttp2 call but the session's deletion
/// happens on the channel's event loop: from this handler's channel events, or from the core, which
/// runs there too.
///
/// A read is handed to `nghttp2_session_mem_recv` whole; everything nghttp2 has to send, whether
/// caused by the read, by requests or by timers, goes out with one write and one flush per burst
/// (`nghttp2_session_mem_send` drained into one buffer), so a read that completes a thousand
/// streams and starts a thousand more costs one TLS write.
final class NGHTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The size at which the outbound buffer is written before the flush: a few TLS records' worth,
    /// so that a large burst is not held in one growing allocation.
    static let chunkSize = 64 * 1024

    /// The engine-independent connection.
    let core: HTTP2ConnectionCore
    /// The nghttp2 session; deleted with the handler. Its user data is this handler, unretained:
    /// nghttp2 calls back only from within the calls this handler makes, while it is alive.
    let session: OpaquePointer
    private var context: ChannelHandlerContext?
    /// The bytes of the current flush, reused from one flush to the next.
    private var outbound = ByteBuffer()
    /// Whether `nghttp2_session_mem_send` is being drained: nghttp2 must not be re-entered, and
    /// what callbacks submit meanwhile goes out with the same drain.
    private var sending = false
    /// The request header fields being handed to nghttp2, reused for every request.
    let headerList = NGHTTP2HeaderList()
    /// The header block being received: its stream, `:status` and fields, collected field by field
    /// until nghttp2 reports the whole HEADERS frame. Only the response head's are kept; trailers'
    /// fields are dropped. HTTP/2 never interleaves header blocks, so one at a time suffices.
    var incomingHeaders: (stream: HTTP2StreamHandler, status: Int?, fields: HTTP2FieldBlock)?
    /// nghttp2's description of the last error it reported, to explain a GOAWAY it sends.
    var lastEngineError: String?

    /// Creates the engine of a connection whose logic is `core`, and queues the connection
    /// preface's SETTINGS (nio-http2's, see ``HTTP2ConnectionSettings/http2``).
    ///
    /// - Throws: ``HTTP2ClientError`` if nghttp2 cannot create a session (out of memory).
    init(core: HTTP2ConnectionCore) throws {
        self.core = core
        self.session = try Self.makeSession()
        nghttp2_session_set_user_data(self.session, Unmanaged.passUnretained(self).toOpaque())
        let entries = core.settings.http2.connection.initialSettings.map(\.nghttp2Entry)
        let result = entries.withUnsafeBufferPointer { entries in
            nghttp2_submit_settings(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries.baseAddress, entries.count)
        }
        guard result == 0 else {
            throw HTTP2ClientError.connectFailed("nghttp2 could not queue SETTINGS: \(Self.describe(result))")
        }
    }

    deinit {
        // The one nghttp2 call that may run off the event loop: the last reference can go wherever
        // the channel is released, but only after the loop's last use of the session (a session
        // is not tied to a thread; it only must not be used concurrently). No callback runs here.
        nghttp2_session_del(self.session)
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.core.attach(context: context, engine: self)
        if context.channel.isActive {
            self.flush()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.core.detach()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        // The connection preface (client magic and SETTINGS); over TLS it waits in NIOSSL for the handshake.
        self.flush()
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if self.core.isConnecting, case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event {
            self.core.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
        self.core.readStarted()
        let result = buffer.withUnsafeReadableBytes { bytes in
            nghttp2_session_mem_recv(self.session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        if result < 0 {
            // Fatal for the session (out of memory, a callback failure, a flood): nothing more can
            // be read or sent on it.
            let description = Self.describe(Int32(truncatingIfNeeded: result))
            self.core.recordError(description)
            self.core.close(reason: .protocolError(description))
            return
        }
        if nghttp2_session_want_write(self.session) != 0 {
            // Acknowledgements and window updates nghttp2 queued go out when the read completes.
            self.core.flushPending = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.core.readCompleted()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // TLS and socket errors: the channel closes next, and the error explains why.
        self.core.recordError(String(describing: error))
        self.core.logger.trace("HTTP/2 connection error", metadata: ["error": "\(error)"])
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.core.channelInactive()
        context.fireChannelInactive()
    }
}

// MARK: - HTTP2ConnectionEngine

extension NGHTTP2ConnectionHandler: HTTP2ConnectionEngine {
    var nextStreamID: HTTP2StreamID? {
        // nghttp2 refuses new requests once GOAWAY was sent or received, or stream IDs ran out.
        guard nghttp2_session_check_request_allowed(self.session) != 0 else { return nil }
        let next = nghttp2_session_get_next_stream_id(self.session)
        return next <= UInt32(Int32.max) ? HTTP2StreamID(Int32(next)) : nil
    }

    func writeRequest(of stream: HTTP2StreamHandler, indexingUniqueField: Bool) -> Bool {
        self.headerList.fill(with: stream.request.request, template: self.core.settings.headerTemplate, indexingUniqueField: indexingUniqueField)
        let hasBody = stream.unsentBody.readableBytes > 0
        // nghttp2 copies the provider; the body is read from the stream's buffer as frames are
        // written (`readBody`), found by stream ID, so nothing of it is copied before then.
        var body = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readBody)
        let streamID = self.headerList.withNameValueArray { fields, count in
            if hasBody {
                return nghttp2_submit_request(self.session, nil, fields, count, &body, nil)
            }
            return nghttp2_submit_request(self.session, nil, fields, count, nil, nil)
        }
        guard streamID > 0 else {
            self.core.logger.trace("HTTP/2 stream could not be opened", metadata: ["error": "\(Self.describe(streamID))"])
            return false
        }
        // The core registered the stream under the ID `nextStreamID` announced.
        precondition(streamID == Int32(stream.streamID), "nghttp2 gave stream \(streamID), expected \(stream.streamID)")
        stream.markSent()
        return true
    }

    func writeReset(_ streamID: HTTP2StreamID) {
        nghttp2_submit_rst_stream(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), Int32(streamID), NGHTTP2_CANCEL.rawValue)
    }

    func writePing(_ data: UInt64) {
        withUnsafeBytes(of: data.bigEndian) { bytes in
            _ = nghttp2_submit_ping(self.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    func flush() {
        guard !self.sending, let context else { return }
        self.sending = true
        defer { self.sending = false }
        // Cleared here rather than after the last write: by now TLS has taken the bytes and the
        // buffer is ours alone again, so clearing keeps its storage instead of allocating.
        self.outbound.clear()
        var wrote = false
        // What nghttp2 serialized and did not fit the buffer yet; valid until the next mem_send.
        var pending = UnsafeRawBufferPointer(start: nil, count: 0)
        // Whether nghttp2 has nothing more to send (0) or failed (negative).
        var drained = false
        var failure: Int = 0
        while true {
            // One buffer operation per chunk, nghttp2's frames copied in with raw pointers.
            self.outbound.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.chunkSize) { space in
                var offset = 0
                while offset < space.count {
                    if pending.isEmpty {
                        var data: UnsafePointer<UInt8>?
                        let length = nghttp2_session_mem_send(self.session, &data)
                        guard length > 0, let data else {
                            drained = true
                            failure = length
                            break
                        }
                        pending = UnsafeRawBufferPointer(start: data, count: length)
                    }
                    let count = min(pending.count, space.count - offset)
                    UnsafeMutableRawBufferPointer(rebasing: space[offset..<(offset + count)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: pending[..<count]))
                    pending = UnsafeRawBufferPointer(rebasing: pending[count...])
                    offset += count
                }
                return offset
            }
            guard !drained else { break }
            // The chunk is full and nghttp2 may have more.
            context.write(self.wrapOutboundOut(self.outbound), promise: nil)
            self.outbound = context.channel.allocator.buffer(capacity: Self.chunkSize)
            wrote = true
        }
        if self.outbound.readableBytes > 0 {
            context.write(self.wrapOutboundOut(self.outbound), promise: nil)
            wrote = true
        }
        if wrote {
            context.flush()
        }
        if failure < 0 {
            let description = Self.describe(Int32(truncatingIfNeeded: failure))
            self.core.recordError(description)
            self.core.close(reason: .protocolError(description))
        }
    }
}

// MARK: - Session

extension NGHTTP2ConnectionHandler {
    /// nghttp2's text for one of its error codes.
    static func describe(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }

    /// Creates a client session with the engine's callbacks and options; its user data is set by the caller.
    private static func makeSession() throws -> OpaquePointer {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw HTTP2ClientError.connectFailed("nghttp2 could not allocate its callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.installCallbacks(callbacks)

        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw HTTP2ClientError.connectFailed("nghttp2 could not allocate its options")
        }
        defer { nghttp2_option_del(option) }
        // The nio-http2 engine skips header and content-length validation (see
        // `HTTP2ConnectionSettings`); so does this one: of a response it reads `:status`, parsed as
        // a number, and fields through HTTPTypes, which checks them.
        nghttp2_option_set_no_http_messaging(option, 1)
        // Closed streams are kept only for RFC 7540 priorities, which the pool does not use.
        nghttp2_option_set_no_closed_streams(option, 1)

        var session: OpaquePointer?
        let result = nghttp2_session_client_new2(&session, callbacks, nil, option)
        guard result == 0, let session else {
            throw HTTP2ClientError.connectFailed("nghttp2 could not create a session: \(Self.describe(result))")
        }
        return session
    }
}
