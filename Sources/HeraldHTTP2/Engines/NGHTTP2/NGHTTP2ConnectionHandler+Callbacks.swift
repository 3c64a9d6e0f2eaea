import CNGHTTP2
import NIOCore
import NIOHTTP2

/// nghttp2's callbacks: C functions that find the handler through the session's user data and
/// turn what nghttp2 decoded into calls on the core and the streams.
///
/// C function pointers cannot capture the dynamic `Self`, so they name the class.
///
/// They run only inside `nghttp2_session_mem_recv` and `nghttp2_session_mem_send`, which the
/// handler calls on its event loop; they may submit frames (a reset, new requests the pool
/// dispatches while a read reports releases) but never re-enter those two functions: the core
/// defers flushes while reading, and ``NGHTTP2ConnectionHandler/flush()`` while draining.
extension NGHTTP2ConnectionHandler {
    private static let headersType = UInt8(NGHTTP2_HEADERS.rawValue)
    private static let dataType = UInt8(NGHTTP2_DATA.rawValue)
    private static let resetType = UInt8(NGHTTP2_RST_STREAM.rawValue)
    private static let settingsType = UInt8(NGHTTP2_SETTINGS.rawValue)
    private static let pingType = UInt8(NGHTTP2_PING.rawValue)
    private static let goAwayType = UInt8(NGHTTP2_GOAWAY.rawValue)
    private static let endStreamFlag = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)
    private static let ackFlag = UInt8(NGHTTP2_FLAG_ACK.rawValue)
    private static let statusName = Array(":status".utf8)

    /// The handler a session's callback belongs to.
    private static func handler(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2ConnectionHandler {
        Unmanaged<NGHTTP2ConnectionHandler>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// Sets every callback the engine uses on `callbacks`.
    static func installCallbacks(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            NGHTTP2ConnectionHandler.handler(userData).beginHeaders(frame!.pointee.hd)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, _, name, nameLength, value, valueLength, _, userData in
            NGHTTP2ConnectionHandler.handler(userData).receivedField(
                name: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            NGHTTP2ConnectionHandler.handler(userData).core.streams[HTTP2StreamID(streamID)]?.receivedBody(UnsafeRawBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            NGHTTP2ConnectionHandler.handler(userData).receivedFrame(frame!)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            let stream = NGHTTP2ConnectionHandler.handler(userData).core.streams[HTTP2StreamID(streamID)]
            stream?.closed(reason: errorCode == NGHTTP2_NO_ERROR.rawValue ? nil : HTTP2ErrorCode(networkCode: Int(errorCode)))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard frame!.pointee.hd.type == NGHTTP2ConnectionHandler.goAwayType else { return 0 }
            // The pool never sends GOAWAY: nghttp2 did, for a connection error it detected.
            let handler = NGHTTP2ConnectionHandler.handler(userData)
            if let description = handler.lastEngineError {
                handler.core.recordError(description)
            }
            handler.core.engineSentGoAway(errorCode: HTTP2ErrorCode(networkCode: Int(frame!.pointee.goaway.error_code)))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, errorCode, userData in
            // A request's HEADERS nghttp2 would not send (a GOAWAY came meanwhile): the server
            // never saw it. nghttp2 reports no stream close for it, so the stream is released here.
            let header = frame!.pointee.hd
            guard header.type == NGHTTP2ConnectionHandler.headersType, let stream = NGHTTP2ConnectionHandler.handler(userData).core.streams[HTTP2StreamID(header.stream_id)] else {
                return 0
            }
            NGHTTP2ConnectionHandler.handler(userData).core.logger.trace(
                "HTTP/2 stream could not be opened", metadata: ["error": "\(NGHTTP2ConnectionHandler.describe(errorCode))"])
            stream.abandon()
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, errorCode, userData in
            // nghttp2 resets the stream (or ends the connection) itself; the stream learns why.
            let streamID = frame!.pointee.hd.stream_id
            if streamID != 0 {
                NGHTTP2ConnectionHandler.handler(userData).core.streams[HTTP2StreamID(streamID)]?.receivedError(.protocolError(NGHTTP2ConnectionHandler.describe(errorCode)))
            }
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, userData in
            NGHTTP2ConnectionHandler.handler(userData).lastEngineError = String(
                decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            return 0
        }
    }

    /// Reads the next piece of a request body for nghttp2's DATA frame, from the stream's buffer.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, destination, length, flags, _, userData in
        guard let stream = NGHTTP2ConnectionHandler.handler(userData).core.streams[HTTP2StreamID(streamID)] else {
            // Released already (it cannot be, while nghttp2 still frames its body): reset it.
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let count = min(length, stream.unsentBody.readableBytes)
        if count > 0 {
            stream.unsentBody.readWithUnsafeReadableBytes { bytes in
                UnsafeMutableRawPointer(destination!).copyMemory(from: bytes.baseAddress!, byteCount: count)
                return count
            }
        }
        if stream.unsentBody.readableBytes == 0 {
            flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}

// MARK: - What nghttp2 decoded

extension NGHTTP2ConnectionHandler {
    /// A header block starts: collect it if it is the response head of a stream still open here.
    fileprivate func beginHeaders(_ header: nghttp2_frame_hd) {
        guard header.type == Self.headersType, let stream = self.core.streams[HTTP2StreamID(header.stream_id)],
            stream.awaitsResponseHead
        else {
            self.incomingHeaders = nil
            return
        }
        self.incomingHeaders = (stream, nil, HTTP2FieldBlock())
    }

    /// One field of the header block being received.
    fileprivate func receivedField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard self.incomingHeaders != nil else { return }
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(Self.statusName) {
                self.incomingHeaders!.status = Self.parseStatus(value)
            }
            return
        }
        self.incomingHeaders!.fields.append(name: name, value: value)
    }

    /// A whole frame was received (after its header block, if any).
    fileprivate func receivedFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        let streamID = HTTP2StreamID(header.stream_id)
        switch header.type {
        case Self.headersType:
            let endStream = header.flags & Self.endStreamFlag != 0
            if let incoming = self.incomingHeaders, incoming.stream.streamID == streamID {
                self.incomingHeaders = nil
                incoming.stream.receivedHeaders(
                    status: incoming.status, fields: incoming.fields.isEmpty ? .none : .block(incoming.fields), endStream: endStream)
            } else if let stream = self.core.streams[streamID] {
                // Trailers, or a header block that began before the stream was known: no head to read.
                stream.receivedHeaders(status: nil, fields: .none, endStream: endStream)
            }
        case Self.dataType:
            if header.flags & Self.endStreamFlag != 0 {
                self.core.streams[streamID]?.receivedEndOfBody()
            }
        case Self.resetType:
            self.core.streams[streamID]?.receivedReset(HTTP2ErrorCode(networkCode: Int(frame.pointee.rst_stream.error_code)))
        case Self.settingsType:
            guard header.flags & Self.ackFlag == 0 else { return }
            let settings = frame.pointee.settings
            var maxConcurrentStreams: UInt32?
            for index in 0..<settings.niv where settings.iv[index].settings_id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                maxConcurrentStreams = settings.iv[index].value
            }
            self.core.receivedSettings(maxConcurrentStreams: maxConcurrentStreams)
        case Self.pingType:
            guard header.flags & Self.ackFlag != 0 else { return }
            let data = withUnsafeBytes(of: frame.pointee.ping.opaque_data) { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
            self.core.receivedPingAck(data)
        case Self.goAwayType:
            let goAway = frame.pointee.goaway
            let debugData = goAway.opaque_data_len > 0
                ? ByteBuffer(bytes: UnsafeRawBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len))
                : nil
            self.core.receivedGoAway(
                lastStreamID: HTTP2StreamID(goAway.last_stream_id), errorCode: HTTP2ErrorCode(networkCode: Int(goAway.error_code)), debugData: debugData)
        default:
            break
        }
    }

    /// A `:status` value as a number, `nil` unless it is one to three digits.
    private static func parseStatus(_ value: UnsafeRawBufferPointer) -> Int? {
        guard (1...3).contains(value.count) else { return nil }
        var status = 0
        for byte in value {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return status
    }
}
