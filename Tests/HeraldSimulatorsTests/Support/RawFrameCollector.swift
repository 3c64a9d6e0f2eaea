import NIOCore

/// Hands frames to the test and acknowledges the server's SETTINGS like any client, or only the first few, so that
/// a test can send frames before the acknowledgement of a later SETTINGS frame.
final class RawFrameCollector: ChannelInboundHandler {
    typealias InboundIn = RawFrame
    typealias OutboundOut = ByteBuffer

    private let continuation: AsyncStream<RawFrame>.Continuation
    /// How many more SETTINGS frames of the server to acknowledge on receipt.
    private var settingsToAcknowledge: Int

    init(continuation: AsyncStream<RawFrame>.Continuation, acknowledgingSettings settingsToAcknowledge: Int = .max) {
        self.continuation = continuation
        self.settingsToAcknowledge = settingsToAcknowledge
    }

    func channelActive(context: ChannelHandlerContext) {
        // The preface must precede everything, including the SETTINGS ACK this handler sends on its own.
        var preface = context.channel.allocator.buffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        var settings = RawHTTP2Connection.frame(type: RawFrame.settings, flags: 0, streamID: 0)
        preface.writeBuffer(&settings)
        context.writeAndFlush(self.wrapOutboundOut(preface), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        if frame.type == RawFrame.settings, !frame.isSettingsAck, self.settingsToAcknowledge > 0 {
            self.settingsToAcknowledge -= 1
            context.writeAndFlush(
                self.wrapOutboundOut(RawHTTP2Connection.frame(type: RawFrame.settings, flags: 0x1, streamID: 0)),
                promise: nil
            )
        }
        self.continuation.yield(frame)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
