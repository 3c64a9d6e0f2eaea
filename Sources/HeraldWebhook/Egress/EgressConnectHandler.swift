import HeraldCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves one connection to the egress guard: a `CONNECT` request, checked, then a tunnel to the destination.
///
/// Answers are written as raw bytes (there is no response encoder in the pipeline): once the tunnel is open
/// the connection carries the destination's bytes, and the few fixed answers need no framing logic.
final class EgressConnectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    /// Name of the request decoder in the pipeline, removed when the tunnel opens.
    static let decoderName = "egress-decoder"

    private enum State {
        case awaitingRequest
        case connecting
        case tunnelling
        case closed
    }

    private let settings: EgressGuard.Settings
    private let logger: Logger
    private var state = State.awaitingRequest

    init(settings: EgressGuard.Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .awaitingRequest:
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            handle(head, context: context)
        case .tunnelling:
            // Bytes the decoder held when it was removed: they belong to the tunnel.
            context.fireChannelRead(data)
        case .connecting, .closed:
            // The rest of the request (its end), or bytes sent before the answer: nothing to do with them.
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state = .closed
        context.close(promise: nil)
    }

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard head.headers["proxy-authorization"].first == settings.expectedAuthorization else {
            // Only this process knows the credentials: another local user cannot use the guard as an open proxy.
            return answer("407 Proxy Authentication Required", context: context)
        }
        guard head.method == .CONNECT, let target = ConnectTarget(head.uri) else {
            return answer("405 Method Not Allowed", context: context)
        }
        state = .connecting
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        DestinationResolver.resolve(host: target.host, port: target.port, on: loop).hop(to: loop).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let addresses):
                handler.connect(to: addresses, target: target, context: context)
            case .failure(let error):
                handler.logger.debug("egress destination not resolved", metadata: ["host": "\(target.host)", "error": "\(error)"])
                handler.drop(context: context)
            }
        }
    }

    private func connect(to addresses: [SocketAddress], target: ConnectTarget, context: ChannelHandlerContext) {
        guard state == .connecting else { return }
        let permitted = addresses.filter { address in
            guard let text = address.ipAddress, let ip = IPAddress(text) else { return false }
            return settings.policy.permits(ip)
        }
        guard !permitted.isEmpty else {
            logger.info("egress destination not allowed", metadata: [
                "host": "\(target.host)", "addresses": "\(addresses.compactMap(\.ipAddress).joined(separator: ","))",
            ])
            return answer(EgressGuard.refusalStatusLine, context: context)
        }
        connect(to: permitted[...], context: context)
    }

    /// Tries the permitted addresses in the resolver's order until one accepts.
    private func connect(to addresses: ArraySlice<SocketAddress>, context: ChannelHandlerContext) {
        guard state == .connecting else { return }
        guard let address = addresses.first else { return drop(context: context) }
        let (clientRelay, upstreamRelay) = EgressRelayHandler.pair()
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context, relay: clientRelay), eventLoop: loop)
        // The upstream channel is made on this same loop (the bootstrap's only one), where the
        // relay pair lives.
        let boundUpstream = NIOLoopBound(upstreamRelay, eventLoop: loop)
        ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(settings.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(boundUpstream.value) }
            }
            .connect(to: address)
            .hop(to: loop)
            .whenComplete { result in
                let (handler, context, relay) = bound.value
                switch result {
                case .success(let upstream):
                    handler.openTunnel(upstream: upstream, relay: relay, context: context)
                case .failure(let error):
                    handler.logger.debug("egress connection failed", metadata: ["error": "\(error)"])
                    handler.connect(to: addresses.dropFirst(), context: context)
                }
            }
    }

    private func openTunnel(upstream: any Channel, relay: EgressRelayHandler, context: ChannelHandlerContext) {
        guard state == .connecting else {
            upstream.close(promise: nil)
            return
        }
        state = .tunnelling
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
        do {
            let pipeline = context.pipeline.syncOperations
            try pipeline.addHandler(relay)
            // Removing the decoder forwards any bytes it held, through this handler, to the relay.
            pipeline.removeHandler(name: Self.decoderName, promise: nil)
            pipeline.removeHandler(context: context, promise: nil)
        } catch {
            upstream.close(promise: nil)
            drop(context: context)
        }
    }

    private func answer(_ statusLine: String, context: ChannelHandlerContext) {
        state = .closed
        let response = "HTTP/1.1 \(statusLine)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Closes without an answer: the client sees the connection closed, a transient failure, as when a
    /// destination cannot be reached directly.
    private func drop(context: ChannelHandlerContext) {
        state = .closed
        context.close(promise: nil)
    }
}
