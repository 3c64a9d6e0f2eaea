import Logging
import NIOCore

/// The last handler of a connection: errors that reach it were already answered by nio-http2 (a `GOAWAY` or a
/// `RST_STREAM`), so it only logs them, at `debug`, since a simulator's clients misbehave on purpose.
final class FCMConnectionErrorHandler: ChannelInboundHandler {
    typealias InboundIn = Any

    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Frames on stream 0 (SETTINGS, PING, GOAWAY, …) are handled by nio-http2; nothing to do here.
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.logger.debug(
            "FCM simulator connection error",
            metadata: ["error": "\(error)", "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "-")"]
        )
    }
}
