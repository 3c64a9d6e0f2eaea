import NIOCore
import NIOHPACK
import NIOHTTP2

/// One request on one HTTP/2 stream: sends HEADERS (and DATA), then collects the response until
/// END_STREAM.
///
/// Not a channel handler: the connection handler routes the stream's frames and events to it by
/// stream ID, so a stream costs one object instead of a child channel with its own pipeline.
/// Lives on the connection's event loop. Every stream ends in exactly one of: the response, a
/// failure, or a hand-back to the pool for a transparent retry; and reports its release to the
/// connection exactly once, when nio-http2 closes the stream (or the connection goes away).
final class HTTP2StreamHandler {
    /// Shared by all body-less responses (APNs success has none), saving an allocation each.
    private static let emptyBody = ByteBuffer()

    /// The request this stream carries.
    let request: HTTP2RequestContext

    /// The stream's ID, chosen by the connection when the stream opens.
    let streamID: HTTP2StreamID

    private let connection: HTTP2ConnectionHandler
    /// `false` once the request is answered, failed or handed back for a retry.
    private(set) var isPending = true
    private var handedBack = false
    private(set) var released = false
    private var sent = false
    private var status: Int?
    private var responseHeaders: HPACKHeaders?
    private var body: ByteBuffer?
    private var resetCode: NIOHTTP2.HTTP2ErrorCode?
    private var streamError: (any Error)?

    /// Creates the stream of one request on `connection`.
    init(request: HTTP2RequestContext, streamID: HTTP2StreamID, connection: HTTP2ConnectionHandler) {
        self.request = request
        self.streamID = streamID
        self.connection = connection
    }

    /// When the request expires.
    var deadline: NIODeadline {
        self.request.deadline
    }

    /// The request's frames, to be written by the connection; marks the request as sent.
    ///
    /// - Parameters:
    ///   - template: The connection's pseudo-header fields.
    ///   - indexingUniqueField: Whether the request's unique field goes into the HPACK dynamic table.
    func requestFrames(template: HTTP2HeaderTemplate, indexingUniqueField: Bool) -> (headers: HTTP2Frame, data: HTTP2Frame?) {
        // Read in place, not copied to a local: a copy of the request costs a retain and a release
        // of each of its fields.
        let hasBody = self.request.request.body.readableBytes > 0
        let headers = HTTP2Frame(
            streamID: self.streamID,
            payload: .headers(.init(
                headers: template.headers(for: self.request.request, indexingUniqueField: indexingUniqueField), endStream: !hasBody))
        )
        let data = hasBody
            ? HTTP2Frame(streamID: self.streamID, payload: .data(.init(data: .byteBuffer(self.request.request.body), endStream: true)))
            : nil
        self.sent = true
        return (headers, data)
    }
}

// MARK: - Frames and events from the connection

extension HTTP2StreamHandler {
    /// A frame of this stream arrived.
    func received(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
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

    /// nio-http2 reported a stream error for this stream (invalid headers, a write refused…).
    func receivedError(_ error: any Error) {
        self.streamError = self.streamError ?? error
    }

    /// nio-http2 closed the stream; `reason` is the reset code, `nil` for a clean close.
    func closed(reason: NIOHTTP2.HTTP2ErrorCode?) {
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

    /// The connection could not open the stream: the request was never sent.
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
    private func receivedHeaders(_ headers: HPACKHeaders, endStream: Bool) {
        if self.status == nil {
            guard let value = headers.first(name: ":status"), let status = Int(value) else {
                self.fail(.protocolError("response without a valid :status"))
                self.connection.reset(self)
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
        // Header fields are converted only if the caller reads them (APNs reads them on errors only).
        let response = HTTP2Response(
            status: status,
            hpackHeaders: self.responseHeaders ?? HPACKHeaders(),
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
}
