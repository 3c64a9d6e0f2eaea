import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves one stream of the test server.
final class TestServerStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: TestServerConnection
    private var context: ChannelHandlerContext?
    private var streamID = HTTP2StreamID(0)
    private var path = ""
    private var requestID = ""
    private var body = ByteBuffer()
    private var counted = false
    private var answered = false

    init(connection: TestServerConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? HTTP2StreamID(0)
        self.counted = true
        self.connection.streamOpened()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let headers):
            self.path = headers.headers.first(name: ":path") ?? ""
            self.requestID = headers.headers.first(name: "x-request-id") ?? ""
            if headers.endStream {
                self.handleRequest(context: context)
            }
        case .data(let data):
            if case .byteBuffer(var buffer) = data.data {
                self.body.writeBuffer(&buffer)
            }
            if data.endStream {
                self.handleRequest(context: context)
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let closed = error as? NIOHTTP2Errors.StreamClosed, closed.errorCode == .cancel {
            self.connection.statistics.withLockedValue { $0.resetsReceived += 1 }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.uncount()
        // Sending GOAWAY closes the streams above its last stream ID before they are answered.
        if !self.answered, self.connection.isDropped(self.streamID) {
            self.answered = true
            self.connection.statistics.withLockedValue { $0.droppedAfterGoAway += 1 }
        }
        context.fireChannelInactive()
    }

    private func uncount() {
        guard self.counted else { return }
        self.counted = false
        self.connection.streamClosed()
    }

    private func handleRequest(context: ChannelHandlerContext) {
        self.connection.requestReceived(streamID: self.streamID)
        switch self.path {
        case "/hang":
            return
        case "/close-connection":
            self.connection.closeConnection()
        case "/hints-and-trailers":
            self.respondWithHintsAndTrailers()
        case "/refuse-once":
            let firstAttempt = self.connection.statistics.withLockedValue { stats -> Bool in
                guard stats.processed[self.requestID] == nil, stats.refusedStreams == 0 else { return false }
                stats.refusedStreams += 1
                return true
            }
            if firstAttempt {
                self.uncount()
                context.writeAndFlush(self.wrapOutboundOut(.rstStream(.refusedStream)), promise: nil)
            } else {
                self.respond()
            }
        default:
            if self.path.hasPrefix("/delay/"), let milliseconds = Int64(self.path.dropFirst("/delay/".count)) {
                self.respond(after: .milliseconds(milliseconds))
            } else {
                self.respond(after: self.connection.options.responseDelay)
            }
        }
    }

    /// 103 Early Hints, then 200 with the echoed body in two DATA frames, then trailers that end the stream.
    private func respondWithHintsAndTrailers() {
        guard let context, !self.answered else { return }
        self.answered = true
        self.connection.statistics.withLockedValue { $0.processed[self.requestID, default: 0] += 1 }
        self.uncount()
        self.connection.answered()
        let hints: HPACKHeaders = [":status": "103", "link": "</style.css>; rel=preload"]
        context.write(self.wrapOutboundOut(.headers(.init(headers: hints, endStream: false))), promise: nil)
        let head: HPACKHeaders = [":status": "200", "x-request-id": self.requestID]
        context.write(self.wrapOutboundOut(.headers(.init(headers: head, endStream: false))), promise: nil)
        var body = self.body
        let first = body.readSlice(length: body.readableBytes / 2)!
        context.write(self.wrapOutboundOut(.data(.init(data: .byteBuffer(first), endStream: false))), promise: nil)
        context.write(self.wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: false))), promise: nil)
        let trailers: HPACKHeaders = ["x-checksum": "\(self.body.readableBytes)"]
        context.write(self.wrapOutboundOut(.headers(.init(headers: trailers, endStream: true))), promise: nil)
        context.flush()
    }

    private func respond(after delay: TimeAmount) {
        guard delay > .zero, let context else {
            self.respond()
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            self.respond()
        }
    }

    private func respond() {
        guard let context, context.channel.isActive, !self.answered else { return }
        self.answered = true
        if self.connection.isDropped(self.streamID) {
            // Declared unprocessed by GOAWAY: the client must send it again elsewhere.
            self.connection.statistics.withLockedValue { $0.droppedAfterGoAway += 1 }
            return
        }
        self.connection.statistics.withLockedValue { $0.processed[self.requestID, default: 0] += 1 }
        // Uncount before the final frame: the client cannot see the stream end any earlier.
        self.uncount()
        self.connection.answered()
        let headers: HPACKHeaders = [
            ":status": "200",
            "x-request-id": self.requestID,
            "x-connection": "\(self.connection.index)",
            "x-stream-id": "\(Int(self.streamID))",
        ]
        let hasBody = self.body.readableBytes > 0
        context.write(self.wrapOutboundOut(.headers(.init(headers: headers, endStream: !hasBody))), promise: nil)
        if hasBody {
            context.write(self.wrapOutboundOut(.data(.init(data: .byteBuffer(self.body), endStream: true))), promise: nil)
        }
        context.flush()
    }
}
