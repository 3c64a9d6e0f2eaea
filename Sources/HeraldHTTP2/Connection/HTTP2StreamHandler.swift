import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Sends one request on its own HTTP/2 stream and collects the response: HEADERS, then DATA
/// until END_STREAM.
///
/// Lives on the connection's event loop. Every stream ends in exactly one of: the response, a
/// failure, or a hand-back to the pool for a transparent retry; and reports its release to the
/// connection exactly once, when its channel closes (or when it never got one).
final class HTTP2StreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// Shared by all body-less responses (APNs success has none), saving an allocation each.
    private static let emptyBody = ByteBuffer()

    /// The request this stream carries.
    let request: HTTP2RequestContext

    /// The handler's slot in the connection's stream list, for O(1) removal.
    var registryIndex = -1

    private let connection: HTTP2ConnectionHandler
    private var context: ChannelHandlerContext?
    /// `false` once the request is answered, failed or handed back for a retry.
    private(set) var isPending = true
    private var handedBack = false
    private var released = false
    private var sent = false
    private var streamID: HTTP2StreamID?
    private var status: Int?
    private var responseHeaders: HPACKHeaders?
    private var body: ByteBuffer?
    private var resetCode: NIOHTTP2.HTTP2ErrorCode?
    private var streamError: (any Error)?

    /// Creates the handler of one request on `connection`.
    init(request: HTTP2RequestContext, connection: HTTP2ConnectionHandler) {
        self.request = request
        self.connection = connection
    }

    /// When the request expires.
    var deadline: NIODeadline {
        self.request.deadline
    }

    /// Whether the connection still takes new streams.
    var connectionAcceptsStreams: Bool {
        self.connection.isUsable
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        guard self.isPending else {
            // Expired or cancelled before the stream opened: close it without sending anything.
            context.close(promise: nil)
            return
        }
        let body = self.request.request.body
        let headers = self.connection.headerTemplate.headers(for: self.request.request)
        context.write(self.wrapOutboundOut(.headers(.init(headers: headers, endStream: body.readableBytes == 0))), promise: nil)
        if body.readableBytes > 0 {
            context.write(self.wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
        context.flush()
        self.sent = true
        // The stream ID is assigned on the first flush; needed to compare with a GOAWAY's last stream ID.
        self.streamID = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let headers):
            self.receivedHeaders(headers.headers, endStream: headers.endStream)
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data, buffer.readableBytes > 0 {
                if self.body == nil {
                    self.body = buffer
                } else {
                    self.body!.writeImmutableBuffer(buffer)
                }
            }
            if data.endStream {
                self.completeResponse()
            }
        case .rstStream(let code):
            self.resetCode = code
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            self.resetCode = self.resetCode ?? closed.errorCode
        } else {
            // Invalid headers, content-length mismatch, a write refused after GOAWAY…: the stream is unusable.
            self.streamError = self.streamError ?? error
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.isPending {
            self.resolveUnfinished()
        }
        self.release()
        context.fireChannelInactive()
    }
}

// MARK: - Events from the connection and the pool

extension HTTP2StreamHandler {
    /// The deadline passed: fail the request and reset the stream (RST_STREAM CANCEL).
    func deadlineExceeded() {
        guard self.isPending else { return }
        self.finish(.failure(.deadlineExceeded(mayHaveBeenProcessed: self.sent)))
        self.context?.close(promise: nil)
    }

    /// The calling task was cancelled: fail the request and reset the stream.
    func cancel() {
        guard self.isPending else { return }
        self.finish(.failure(.cancelled(mayHaveBeenProcessed: self.sent)))
        self.context?.close(promise: nil)
    }

    /// The stream channel could not be created or initialised; the request was never sent.
    func abandon() {
        if self.isPending {
            self.handBackOrFail(wasSent: false, otherwise: .connectionClosed("the stream could not be opened"))
        }
        self.release()
    }

    /// The connection closed before this handler got a stream channel.
    func connectionClosedBeforeAttach() {
        guard self.context == nil else { return }
        self.abandon()
    }
}

// MARK: - Response and outcome

extension HTTP2StreamHandler {
    private func receivedHeaders(_ headers: HPACKHeaders, endStream: Bool) {
        if self.status == nil {
            guard let value = headers.first(name: ":status"), let status = Int(value) else {
                self.fail(.protocolError("response without a valid :status"))
                self.context?.close(promise: nil)
                return
            }
            if (100..<200).contains(status), !endStream {
                // Informational (1xx) responses precede the final one; nothing to keep.
                return
            }
            self.status = status
            self.responseHeaders = headers
        }
        // A later HEADERS frame carries trailers; nothing in them matters here.
        if endStream {
            self.completeResponse()
        }
    }

    private func completeResponse() {
        guard self.isPending else { return }
        guard let status = self.status else {
            self.fail(.protocolError("response ended without HEADERS"))
            return
        }
        let response = HTTP2Response(
            status: status,
            headers: Self.fields(from: self.responseHeaders),
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
        if let streamID = self.streamID, self.connection.wasNotProcessed(streamID) {
            let reason = self.connection.closeReason.flatMap { reason -> String? in
                if case .goAway(let text) = reason { return text }
                return nil
            }
            self.handBackOrFail(wasSent: true, otherwise: .goAway(reason, mayHaveBeenProcessed: false))
            return
        }
        if let error = self.streamError {
            if error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
                self.handBackOrFail(wasSent: false, otherwise: .goAway(nil, mayHaveBeenProcessed: false))
            } else {
                self.fail(.protocolError(String(describing: error)))
            }
            return
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

    private static func fields(from headers: HPACKHeaders?) -> HTTPFields {
        guard let headers else { return HTTPFields() }
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value, _) in headers where !name.hasPrefix(":") {
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        return fields
    }
}
