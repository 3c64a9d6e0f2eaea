import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves one HTTP/2 stream of a simulator: collects the request, asks the service's processor, and answers (or
/// not, as the processor decides).
final class SimulatorHTTP2StreamHandler<Processor: SimulatorHTTP2RequestProcessor>: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let processor: Processor
    private let connection: Processor.Connection
    private let streamID: HTTP2StreamID
    private var headers: HPACKHeaders?
    private var body: ByteBuffer?
    private var bodyLength = 0
    private var processed = false

    init(processor: Processor, connection: Processor.Connection, streamID: HTTP2StreamID) {
        self.processor = processor
        self.connection = connection
        self.streamID = streamID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let headers):
            // A second HEADERS block would be trailers, which the simulated APIs' requests never carry; only the
            // first counts.
            if self.headers == nil {
                self.headers = headers.headers
            }
            if headers.endStream {
                self.process(context: context)
            }
        case .data(let data):
            if case .byteBuffer(var chunk) = data.data {
                self.bodyLength += chunk.readableBytes
                if self.bodyLength <= Processor.bodyCap {
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
        let request = SimulatorHTTP2Request(
            streamID: self.streamID,
            headers: headers,
            body: self.bodyLength <= Processor.bodyCap ? self.body : nil,
            bodyLength: self.bodyLength
        )
        self.body = nil
        switch self.processor.process(request, connection: self.connection) {
        case .respond(let response, let delay) where delay > 0:
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(delay))) {
                self.respond(response, context: context)
            }
        case .respond(let response, _):
            self.respond(response, context: context)
        case .hang:
            break
        case .goAway(let debugText):
            self.connection.goAway(
                lastStreamID: self.connection.lastStreamID(before: self.streamID),
                debugText: debugText
            )
        case .resetConnection:
            self.connection.reset()
        }
    }

    private func respond(_ response: Processor.Response, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let body = response.body(allocator: context.channel.allocator)
        let headers = HTTP2Frame.FramePayload.headers(.init(headers: response.headerBlock, endStream: body == nil))
        if let body {
            context.write(self.wrapOutboundOut(headers), promise: nil)
            context.writeAndFlush(
                self.wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        } else {
            context.writeAndFlush(self.wrapOutboundOut(headers), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.connection.logger.trace("Stream error", metadata: ["stream": "\(self.streamID)", "error": "\(error)"])
        context.close(promise: nil)
    }
}
