import Logging
import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake has not completed within a deadline of its opening.
///
/// The header timeout starts once the handshake is done; without this a client that opens a
/// connection and never finishes its ClientHello would hold the connection for ever.
final class TLSHandshakeDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let timeout: TimeAmount
    private let deadline: ConnectionDeadline

    init(deadline: TimeAmount, logger: Logger) {
        self.timeout = deadline
        self.deadline = ConnectionDeadline(logger: logger)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case .handshakeCompleted = event as? TLSUserEvent {
            disarm()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard !deadline.isArmed else { return }
        deadline.arm(context, in: timeout, waitingFor: "TLS handshake")
    }

    private func disarm() {
        deadline.stop()
    }
}
