import NIOCore

/// Joins the buffers written between two flushes into few large ones before TLS sees them.
///
/// nio-http2 writes every frame as its own buffer, and a DATA frame as two (header and payload):
/// three writes per request. NIOSSL turns each write into its own TLS record, so without this
/// handler every request costs three record encryptions here and three decryptions at the
/// server, each with its header, tag and bookkeeping. Copying a few hundred bytes is cheaper than
/// any of that. Buffers are passed on at ``chunkSize`` so that a large burst is not held in one
/// growing allocation.
public final class HTTP2WriteCoalescingHandler: ChannelOutboundHandler {
    public typealias OutboundIn = IOData
    public typealias OutboundOut = IOData

    /// The size at which the pending buffer is passed on before the flush: a few TLS records' worth.
    public static let chunkSize = 64 * 1024

    private var pending: ByteBuffer?
    private var pendingPromise: EventLoopPromise<Void>?

    /// Creates the handler; it goes between the TLS handler and `NIOHTTP2Handler`.
    public init() {}

    /// Adds a buffer to the pending one, passing it on once it reaches ``chunkSize``.
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .byteBuffer(var buffer):
            if self.pending == nil {
                self.pending = context.channel.allocator.buffer(capacity: max(buffer.readableBytes, 1024))
            }
            self.pending!.writeBuffer(&buffer)
            if let promise {
                if let pendingPromise = self.pendingPromise {
                    pendingPromise.futureResult.cascade(to: promise)
                } else {
                    self.pendingPromise = promise
                }
            }
            if self.pending!.readableBytes >= Self.chunkSize {
                self.passOnPending(context: context)
            }
        case .fileRegion:
            // Never used by HTTP/2 over TLS; kept in order all the same.
            self.passOnPending(context: context)
            context.write(data, promise: promise)
        }
    }

    /// Passes the pending buffer on, then the flush.
    public func flush(context: ChannelHandlerContext) {
        self.passOnPending(context: context)
        context.flush()
    }

    /// Passes the pending buffer on before the close.
    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // Unflushed writes meet the close below, which fails them as NIO does.
        self.passOnPending(context: context)
        context.close(mode: mode, promise: promise)
    }

    /// Fails the promises of writes never passed on.
    public func handlerRemoved(context: ChannelHandlerContext) {
        self.pendingPromise?.fail(ChannelError.ioOnClosedChannel)
        self.pendingPromise = nil
        self.pending = nil
    }

    private func passOnPending(context: ChannelHandlerContext) {
        guard let buffer = self.pending else { return }
        let promise = self.pendingPromise
        self.pending = nil
        self.pendingPromise = nil
        context.write(self.wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
    }
}
