import NIOCore
import NIOHTTP2

extension HTTP2StreamHandler {
    /// The request's frames, to be written by the nio-http2 engine; marks the request as sent.
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
        self.markSent()
        return (headers, data)
    }

    /// A frame of this stream arrived from nio-http2.
    func received(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .headers(let headers):
            // `:status` is looked up only in the response head: trailers have none.
            let status = self.awaitsResponseHead ? headers.headers.first(name: ":status").flatMap { Int($0) } : nil
            self.receivedHeaders(status: status, fields: .hpack(headers.headers), endStream: headers.endStream)
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data {
                self.receivedBody(buffer)
            }
            if data.endStream {
                self.receivedEndOfBody()
            }
        case .rstStream(let code):
            self.receivedReset(code)
        default:
            break
        }
    }
}
