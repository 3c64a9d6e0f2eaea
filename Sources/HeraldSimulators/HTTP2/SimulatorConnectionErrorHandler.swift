import Logging
import NIOCore

/// The last handler of a simulator's HTTP/2 connection: errors that reach it were already answered by nio-http2 (a
/// `GOAWAY` or a `RST_STREAM`), so it only logs them, at `debug`, since a simulator's clients misbehave on purpose.
final class SimulatorConnectionErrorHandler: ChannelInboundHandler {
    typealias InboundIn = Any

    private let serviceName: String
    private let logger: Logger

    /// A handler logging as the `serviceName` (`APNs`, `FCM`) simulator.
    init(serviceName: String, logger: Logger) {
        self.serviceName = serviceName
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Frames on stream 0 (SETTINGS, PING, GOAWAY, …) are handled by nio-http2; nothing to do here.
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.logger.debug(
            "\(self.serviceName) simulator connection error",
            metadata: ["error": "\(error)", "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "-")"]
        )
    }
}
