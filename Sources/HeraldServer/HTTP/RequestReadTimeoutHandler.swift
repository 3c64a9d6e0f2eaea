import HTTPTypes
import HeraldServerTLS
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes

/// Closes connections whose client is too slow to send a request: the request head must arrive
/// within `headerTimeout` of the connection opening (or of the previous response), and its body
/// within `bodyTimeout` of the head.
///
/// Without it a client trickling a byte at a time ("slowloris") holds a connection and its task for
/// as long as it likes; Hummingbird's idle timeout alone resets on every byte.
final class RequestReadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the connection is waiting for.
    private enum Phase {
        case awaitingHead
        case readingBody
        case handling
    }

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private var phase = Phase.awaitingHead
    private let deadline: ConnectionDeadline

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount, logger: Logger) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.deadline = ConnectionDeadline(logger: logger)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, headerTimeout, waitingFor: "request head") }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, headerTimeout, waitingFor: "request head")
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.stop()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            phase = .readingBody
            arm(context, bodyTimeout, waitingFor: "request body")
        case .body:
            break
        case .end:
            phase = .handling
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The next request of a kept-alive connection gets its own head deadline. An answer given
        // before the body was read (413, 401) leaves the body deadline running.
        if case .end = unwrapOutboundIn(data), phase == .handling {
            phase = .awaitingHead
            arm(context, headerTimeout, waitingFor: "request head")
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount, waitingFor what: String) {
        deadline.arm(context, in: timeout, waitingFor: what)
    }

    private func disarm() {
        deadline.disarm()
    }
}
