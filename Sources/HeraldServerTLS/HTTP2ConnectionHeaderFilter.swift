import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Removes connection-specific header fields (`Connection`, `Keep-Alive`, `Proxy-Connection`,
/// `Transfer-Encoding`, `Upgrade`) from responses sent on an HTTP/2 stream.
///
/// HTTP/2 forbids them (RFC 9113 §8.2.2) and swift-nio-http2 resets a stream whose response
/// carries one, yet routes written for HTTP/1.1 set them (the event stream answers
/// `Connection: close`). On an HTTP/1.1 connection the handler removes itself, leaving them be.
final class HTTP2ConnectionHeaderFilter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private static let forbidden: [HTTPField.Name] = [
        .connection, .transferEncoding, .upgrade, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!,
    ]

    func handlerAdded(context: ChannelHandlerContext) {
        if !context.pipeline.syncOperations.isHTTP2Stream {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var response) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        for name in Self.forbidden { response.headerFields[name] = nil }
        context.write(wrapOutboundOut(.head(response)), promise: promise)
    }
}
