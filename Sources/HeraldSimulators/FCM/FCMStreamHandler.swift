import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves one HTTP/2 stream: collects the request, asks the processor, and answers (or not, as injected).
final class FCMStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let processor: FCMRequestProcessor
    private let connection: FCMConnectionState
    private let streamID: HTTP2StreamID
    private var headers: HPACKHeaders?
    private var body: ByteBuffer?
    private var bodyLength = 0
    private var processed = false

    init(processor: FCMRequestProcessor, connection: FCMConnectionState, streamID: HTTP2StreamID) {
        self.processor = processor
        self.connection = connection
        self.streamID = streamID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let headers):
            // A second HEADERS block would be trailers, which these requests never carry; only the first counts.
            if self.headers == nil {
                self.headers = headers.headers
            }
            if headers.endStream {
                self.process(context: context)
            }
        case .data(let data):
            if case .byteBuffer(var chunk) = data.data {
                self.bodyLength += chunk.readableBytes
                if self.bodyLength <= FCMRequest.bodyCap {
                    if self.body == nil {
                        self.body = chunk
                    } else {
                        self.body!.writeBuffer(&chunk)
                    }
                }
            }
            if data.endStream {
                self.process(context: context)
            }
        default:
            break
        }
    }

    private func process(context: ChannelHandlerContext) {
        guard !self.processed, let headers = self.headers else { return }
        self.processed = true
        let request = FCMRequest(
            streamID: self.streamID,
            headers: headers,
            body: self.bodyLength <= FCMRequest.bodyCap ? self.body : nil,
            bodyLength: self.bodyLength
        )
        self.body = nil
        switch self.processor.process(request) {
        case .respond(let response, let delay) where delay > 0:
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(delay))) {
                self.respond(response, context: context)
            }
        case .respond(let response, _):
            self.respond(response, context: context)
        case .hang:
            break
        case .goAway:
            self.connection.goAway(lastStreamID: self.connection.lastStreamID(before: self.streamID))
        case .resetConnection:
            self.connection.reset()
        }
    }

    private func respond(_ response: FCMResponse, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let headers = HTTP2Frame.FramePayload.headers(.init(headers: response.hpackHeaders, endStream: response.body.isEmpty))
        if response.body.isEmpty {
            context.writeAndFlush(self.wrapOutboundOut(headers), promise: nil)
        } else {
            context.write(self.wrapOutboundOut(headers), promise: nil)
            let body = context.channel.allocator.buffer(string: response.body)
            context.writeAndFlush(self.wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.connection.logger.trace("Stream error", metadata: ["stream": "\(self.streamID)", "error": "\(error)"])
        context.close(promise: nil)
    }
}
