import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// One raw TLS connection to a server, kept open: what the handshake negotiated, the certificate
/// the server presented, and HTTP/1.1 requests sent one after another on this same connection.
public final class TLSProbe: Sendable {
    /// The ALPN protocol the server chose (`h2`, `http/1.1`), if any.
    public let negotiatedProtocol: String?
    /// The certificate the server presented, in DER.
    public let peerCertificateDER: [UInt8]
    private let channel: any Channel

    private init(negotiatedProtocol: String?, peerCertificateDER: [UInt8], channel: any Channel) {
        self.negotiatedProtocol = negotiatedProtocol
        self.peerCertificateDER = peerCertificateDER
        self.channel = channel
    }

    /// Connects to `127.0.0.1:port`, verifying the server against `configuration`'s trust roots
    /// for the name `localhost`, and completes the handshake.
    public static func connect(port: Int, configuration: TLSConfiguration) async throws -> TLSProbe {
        let context = try NIOSSLContext(configuration: configuration)
        let handshake = HandshakeObserver()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                        try operations.addHandler(handshake)
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
        } catch {
            handshake.fail(error)
            throw error
        }
        do {
            let (negotiated, certificate) = try await handshake.completed.get()
            return TLSProbe(negotiatedProtocol: negotiated, peerCertificateDER: certificate, channel: channel)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Sends `GET path` over HTTP/1.1 on this connection and returns the status code (not after
    /// negotiating `h2`: the probe speaks no HTTP/2).
    public func get(_ path: String) async throws -> Int {
        let channel = self.channel
        return try await channel.eventLoop.flatSubmit {
            let promise = channel.eventLoop.makePromise(of: Int.self)
            do {
                try channel.pipeline.syncOperations.handler(type: ResponseCollector.self).expect(promise)
            } catch {
                promise.fail(error)
                return promise.futureResult
            }
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
            head.headers.add(name: "Host", value: "localhost")
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            return promise.futureResult
        }.get()
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }
}

/// Learns the outcome of the TLS handshake, and then sets the connection up for HTTP/1.1
/// unless HTTP/2 was negotiated.
private final class HandshakeObserver: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<(String?, [UInt8])>

    init() {
        // Any loop will do: the future is only awaited.
        promise = MultiThreadedEventLoopGroup.singleton.any().makePromise()
    }

    /// The negotiated protocol and the server's certificate in DER.
    var completed: EventLoopFuture<(String?, [UInt8])> { promise.futureResult }

    /// Ends the wait when there is no connection to observe (a later completion is ignored).
    func fail(_ error: any Error) {
        promise.fail(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent {
            // Read now: the server may close the connection (and empty the pipeline) at any time later.
            do {
                let operations = context.pipeline.syncOperations
                let certificate = try operations.handler(type: NIOSSLClientHandler.self).peerCertificate?.toDERBytes() ?? []
                if negotiated != "h2" {
                    try operations.addHTTPClientHandlers(position: .after(self))
                    try operations.addHandler(ResponseCollector(), position: .last)
                }
                promise.succeed((negotiated, certificate))
            } catch {
                promise.fail(error)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}

/// Hands each response's status to the request waiting for it.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    private var waiting: [EventLoopPromise<Int>] = []
    private var status: Int?

    func expect(_ promise: EventLoopPromise<Int>) {
        waiting.append(promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body:
            break
        case .end:
            if !waiting.isEmpty, let status { waiting.removeFirst().succeed(status) }
            status = nil
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    private func failAll(_ error: any Error) {
        let waiting = self.waiting
        self.waiting = []
        for promise in waiting { promise.fail(error) }
    }
}
