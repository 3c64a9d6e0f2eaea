import NIOCore
import NIOHTTP2

/// Sits behind the server's `NIOHTTP2Handler`: counts PINGs and stream-limit violations.
final class TestServerConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let connection: TestServerConnection

    init(connection: TestServerConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.connection.rootContext = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.connection.rootContext = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .ping(_, ack: false) = self.unwrapInboundIn(data).payload {
            self.connection.statistics.withLockedValue { $0.pingsReceived += 1 }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.MaxStreamsViolation {
            self.connection.statistics.withLockedValue { $0.streamLimitViolations += 1 }
        }
    }
}
