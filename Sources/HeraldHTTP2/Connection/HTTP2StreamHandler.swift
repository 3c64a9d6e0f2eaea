import NIOCore
import NIOHTTP2

/// One request on one HTTP/2 stream: collects the response until END_STREAM and decides what a
/// stream that ended without one means.
///
/// Not a channel handler: the engine routes the stream's frames and events to it by stream ID, so
/// a stream costs one object instead of a child channel with its own pipeline. Engine-independent:
/// each engine turns what it decoded into the calls below (nio-http2's frames in
/// `HTTP2StreamHandler+NIOHTTP2.swift`, nghttp2's callbacks in ``NGHTTP2ConnectionHandler``).
/// Lives on the connection's event loop. Every stream ends in exactly one of: the response, a
/// failure, or a hand-back to the pool for a transparent retry; and reports its release to the
/// connection exactly once, when the engine closes the stream (or the connection goes away).
final class HTTP2StreamHandler {
    /// What an engine reported against the stream before closing it.
    enum EngineError {
        /// The engine refused to send the request because of a GOAWAY: the server never saw it.
        case notSentAfterGoAway
        /// The engine found the stream's frames invalid (it resets the stream).
        case protocolError(String)
    }

    /// Shared by all body-less responses (APNs success has none), saving an allocation each.
    private static let emptyBody = ByteBuffer()

    /// The request this stream carries.
    let request: HTTP2RequestContext

    /// The stream's ID, chosen by the connection when the stream opens.
    let streamID: HTTP2StreamID

    /// The part of the request body not yet handed to the engine, for engines that pull the body
    /// in pieces as flow control allows (nghttp2's data provider); a view of the request's buffer,
    /// not a copy.
    var unsentBody: ByteBuffer

    private let connection: HTTP2ConnectionCore
    /// `false` once the request is answered, failed or handed back for a retry.
    private(set) var isPending = true
    private var handedBack = false
    private(set) var released = false
    private var sent = false
    private var status: Int?
    private var responseFields: HTTP2ReceivedFields?
    private var body: ByteBuffer?
    private var resetCode: HTTP2ErrorCode?
    private var engineError: EngineError?

    /// Creates the stream of one request on `connection`.
    init(request: HTTP2RequestContext, streamID: HTTP2StreamID, connection: HTTP2ConnectionCore) {
        self.request = request
        self.streamID = streamID
        self.connection = connection
        self.unsentBody = request.request.body
    }

    /// When the request expires.
    var deadline: NIODeadline {
        self.request.deadline
    }

    /// Whether the final response head is still awaited: header blocks before it carry `:status`,
    /// later ones are trailers, whose fields nothing reads.
    var awaitsResponseHead: Bool {
        self.status == nil
    }

    /// The engine is writing the request: from now on the server may see it.
    func markSent() {
        self.sent = true
    }
}

// MARK: - What the engine decoded

extension HTTP2StreamHandler {
    /// A header block of this stream arrived: an informational response, the response head, or trailers.
    ///
    /// - Parameters:
    ///   - status: The block's `:status` as a number; `nil` when absent or invalid (only read while
    ///     ``awaitsResponseHead``).
    ///   - fields: The block's fields, converted only if the caller reads them.
    ///   - endStream: Whether the block ended the stream.
    func receivedHeaders(status: Int?, fields: @autoclosure () -> HTTP2ReceivedFields, endStream: Bool) {
        if self.status == nil {
            guard let status else {
                self.fail(.protocolError("response without a valid :status"))
                self.connection.reset(self)
                return
            }
            if (100..<200).contains(status), !endStream {
                // Informational (1xx) responses precede the final one; nothing to keep.
                return
            }
            self.status = status
            self.responseFields = fields()
        }
        // A later header block carries trailers; nothing in them matters here.
        if endStream {
            self.completeResponse()
        }
    }

    /// A piece of the response body arrived.
    func receivedBody(_ buffer: ByteBuffer) {
        guard buffer.readableBytes > 0 else { return }
        if self.body == nil {
            self.body = buffer
        } else {
            self.body!.writeImmutableBuffer(buffer)
        }
    }

    /// A piece of the response body arrived as bytes the engine owns (copied).
    func receivedBody(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        if self.body == nil {
            self.body = ByteBuffer(bytes: bytes)
        } else {
            self.body!.writeBytes(bytes)
        }
    }

    /// The stream ended after the last body piece (END_STREAM on DATA).
    func receivedEndOfBody() {
        self.completeResponse()
    }

    /// The server reset the stream (RST_STREAM).
    func receivedReset(_ code: HTTP2ErrorCode) {
        self.resetCode = code
    }

    /// The engine reported an error for this stream (invalid frames, a write refused…).
    func receivedError(_ error: EngineError) {
        self.engineError = self.engineError ?? error
    }

    /// The engine closed the stream; `reason` is the reset code, `nil` for a clean close.
    func closed(reason: HTTP2ErrorCode?) {
        if let reason, self.resetCode == nil {
            self.resetCode = reason
        }
        if self.isPending {
            self.resolveUnfinished()
        }
        self.release()
    }

    /// The connection's channel went away with the stream still open.
    func connectionClosed() {
        if self.isPending {
            self.resolveUnfinished()
        }
        self.release()
    }

    /// The engine could not send the request: the server never saw it.
    func abandon() {
        self.sent = false
        if self.isPending {
            self.handBackOrFail(wasSent: false, otherwise: .connectionClosed("the stream could not be opened"))
        }
        self.release()
    }
}

// MARK: - Events from the connection and the pool

extension HTTP2StreamHandler {
    /// The deadline passed: fail the request and reset the stream (RST_STREAM CANCEL).
    func deadlineExceeded() {
        guard self.isPending else { return }
        self.finish(.failure(.deadlineExceeded(mayHaveBeenProcessed: self.sent)))
        self.connection.reset(self)
    }

    /// The calling task was cancelled: fail the request and reset the stream.
    func cancel() {
        guard self.isPending else { return }
        self.finish(.failure(.cancelled(mayHaveBeenProcessed: self.sent)))
        self.connection.reset(self)
    }
}

// MARK: - Response and outcome

extension HTTP2StreamHandler {
    private func completeResponse() {
        guard self.isPending else { return }
        guard let status = self.status else {
            self.fail(.protocolError("response ended without HEADERS"))
            return
        }
        // Header fields are converted only if the caller reads them (APNs reads them on errors only).
        let response = HTTP2Response(
            status: status,
            receivedFields: self.responseFields ?? .none,
            body: self.body ?? Self.emptyBody
        )
        self.finish(.success(response))
    }

    /// Decides what a stream that closed without a complete response means.
    ///
    /// Requests the server provably did not process are handed back for a transparent retry;
    /// anything else fails with a retryable error that says whether the server may have acted.
    private func resolveUnfinished() {
        if !self.sent {
            self.handBackOrFail(wasSent: false, otherwise: .connectionClosed("the stream never opened"))
            return
        }
        if self.resetCode == .refusedStream {
            self.handBackOrFail(wasSent: true, otherwise: .streamReset(.refusedStream))
            return
        }
        if self.connection.wasNotProcessed(self.streamID) {
            let reason = self.connection.closeReason.flatMap { reason -> String? in
                if case .goAway(let text) = reason { return text }
                return nil
            }
            self.handBackOrFail(wasSent: true, otherwise: .goAway(reason, mayHaveBeenProcessed: false))
            return
        }
        switch self.engineError {
        case .notSentAfterGoAway:
            self.handBackOrFail(wasSent: false, otherwise: .goAway(nil, mayHaveBeenProcessed: false))
            return
        case .protocolError(let description):
            self.fail(.protocolError(description))
            return
        case nil:
            break
        }
        if let closeReason = self.connection.closeReason {
            self.fail(closeReason.inFlightError)
            return
        }
        if let code = self.resetCode {
            self.fail(.streamReset(code))
            return
        }
        self.fail(.protocolError("the stream closed before a complete response"))
    }

    private func handBackOrFail(wasSent: Bool, otherwise error: HTTP2ClientError) {
        if self.request.prepareRetry(wasSent: wasSent, limit: self.connection.maxTransparentRetries) {
            self.isPending = false
            self.handedBack = true
        } else if self.request.isCancelRequested {
            self.fail(.cancelled(mayHaveBeenProcessed: false))
        } else {
            self.fail(error)
        }
    }

    private func fail(_ error: HTTP2ClientError) {
        self.finish(.failure(error))
    }

    private func finish(_ result: Result<HTTP2Response, HTTP2ClientError>) {
        guard self.isPending else { return }
        self.isPending = false
        self.request.finish(result)
    }

    private func release() {
        guard !self.released else { return }
        self.released = true
        self.connection.streamReleased(self, retry: self.handedBack ? self.request : nil)
    }
}
