import NIOCore

/// One half of a tunnel: what its channel reads is written to its partner's channel.
///
/// Both halves live on one event loop (the upstream connection is opened on the client's loop), so partners
/// call each other directly. Reads stop while the partner cannot take more, so a fast side cannot make the
/// relay buffer without bound.
final class EgressRelayHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: EgressRelayHandler?
    private var context: ChannelHandlerContext?
    private var readPending = false

    private init() {}

    /// Two handlers relaying to each other, one for each channel of a tunnel.
    static func pair() -> (EgressRelayHandler, EgressRelayHandler) {
        let first = EgressRelayHandler()
        let second = EgressRelayHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The partner may have been asked to read before this half existed (its channel became active first):
        // that read was held back and is issued now.
        partner?.partnerBecameWritable()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        self.partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.partnerWrite(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.partnerFlush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerClose()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        partner?.partnerClose()
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
    }

    func read(context: ChannelHandlerContext) {
        if partner?.partnerIsWritable ?? false {
            context.read()
        } else {
            readPending = true
        }
    }

    private func partnerWrite(_ data: NIOAny) {
        context?.write(data, promise: nil)
    }

    private func partnerFlush() {
        context?.flush()
    }

    private func partnerClose() {
        context?.close(promise: nil)
    }

    private var partnerIsWritable: Bool {
        context?.channel.isWritable ?? false
    }

    private func partnerBecameWritable() {
        guard readPending, let context else { return }
        readPending = false
        context.read()
    }
}
