import HeraldCore
import HeraldServerTLS
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Serves `GET /subscribe` on a plain HTTP/1.1 connection itself, beside Hummingbird's request
/// path: once the answer's head is written the hub writes events straight to the channel.
///
/// A listener stays connected for hours. Served by the router, it kept the connection's task
/// alive for all that time, with the stack slabs of the deepest call that task ever made (the
/// router, the middleware, the route): about 14.5 KB of a listener's 23 KB. Here a listener costs
/// its channel and a handler; Hummingbird's task for the connection waits for a request that
/// never comes, holding only its first frames.
///
/// Requests it does not take pass on to the router unchanged, and so does every refusal, which
/// the route (``PushdRoutes/eventStream(_:_:)``) words: a malformed request, a refused client,
/// a full hub, a connection that still owes an earlier answer, and HTTP/2 streams, where this
/// handler removes itself.
final class EventStreamTakeover: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What every connection's handler shares.
    struct Parts: Sendable {
        /// The listeners of this node.
        let hub: EventStreamHub
        /// Who may listen (realm `listen`).
        let authorizer: Authorizer
        /// The access log and request counters.
        let recorder: RequestRecorder
    }

    private static let path = "/subscribe"

    private let parts: Parts
    private var state: StateMachine
    private var context: ChannelHandlerContext?
    /// Completed at the connection's first request head, or when it closes without one.
    private var firstRequest: EventLoopPromise<Bool>?

    /// Whether the connection's first request is an event stream this handler serves (``EventStreamHTTP1Channel``
    /// then leaves the connection to it); `nil` where the handler stood aside.
    var firstRequestIsEventStream: EventLoopFuture<Bool>? { firstRequest?.futureResult }

    /// Creates the handler of one connection.
    init(parts: Parts) {
        self.parts = parts
        self.state = StateMachine(maxUnsent: parts.hub.maxBuffered)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.pipeline.syncOperations.isHTTP2Stream {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } else {
            self.context = context
            firstRequest = context.eventLoop.makePromise()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        answerFirstRequest(isEventStream: false)
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The stream's request body (there should be none) and anything sent after it are ignored.
        guard !state.isStreaming else { return }
        if case .head(let head) = unwrapInboundIn(data) {
            if state.mayTakeOver, takeOver(head, context: context) {
                answerFirstRequest(isEventStream: true)
                return
            }
            answerFirstRequest(isEventStream: false)
            state.relayedRequest()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { state.relayedResponseEnd() }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        answerFirstRequest(isEventStream: false)
        if let listener = state.closed() { parts.hub.remove(listener) }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard state.isStreaming else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch event {
        case is ChannelShouldQuiesceEvent:
            // The server is shutting down gracefully: a stream never ends by itself, so end it now.
            finish()
        case ChannelEvent.inputClosed:
            // The listener closed its side (Hummingbird allows half-closed connections): nobody reads any more.
            finish()
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func answerFirstRequest(isEventStream: Bool) {
        firstRequest?.succeed(isEventStream)
        firstRequest = nil
    }

    /// Whether `head` may listen; a refusal is the route's to answer.
    private func authorized(_ head: HTTPRequest, address: SocketAddress?) -> Bool {
        do {
            try parts.authorizer.authorize(headers: head.headerFields, address: address, realm: .listen)
            return true
        } catch {
            return false
        }
    }

    /// Starts the event stream `head` asks for, when it is one this handler may serve.
    private func takeOver(_ head: HTTPRequest, context: ChannelHandlerContext) -> Bool {
        guard head.method == .get, let target = head.path else { return false }
        let question = target.firstIndex(of: "?")
        guard target[..<(question ?? target.endIndex)] == Self.path else { return false }
        let query = question.map { target[target.index(after: $0)...] }
        // A full hub is the route's to refuse: checked before authorizing, which takes a rate-limit token.
        guard let asked = try? EventStreamRequest(query: query, headers: head.headerFields), !parts.hub.isFull,
            authorized(head, address: context.channel.remoteAddress),
            let listener = parts.hub.attach(
                to: asked.events, channel: EventStreamChannel(takeover: NIOLoopBound(self, eventLoop: context.eventLoop)),
                lastEventID: asked.lastEventID)
        else { return false }

        // Hummingbird's idle timeout would close the stream: the handler that keeps it never sees this request.
        if let idle = try? context.pipeline.syncOperations.context(handlerType: HTTPConnectionStateHandler.self) {
            context.pipeline.syncOperations.removeHandler(context: idle, promise: nil)
        }
        state.tookOver(listener: listener)
        // Logged before the answer leaves, as the router's requests are.
        parts.recorder.record(method: "GET", path: Self.path, target: target, status: 200, route: Self.path)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: EventStreamRequest.responseHeaders))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(asked.preamble)), promise: nil)
        Self.dropRequestDecoder(context.pipeline)
        return true
    }

    /// Replaces the request decoder, its parser and its buffers with a handler that drops what the
    /// listener sends: the stream reads no more requests. Done on the next turn of the event loop,
    /// outside the decoder's own call.
    private static func dropRequestDecoder(_ pipeline: ChannelPipeline) {
        pipeline.eventLoop.assumeIsolated().execute {
            let operations = pipeline.syncOperations
            // In the decoder's place: over TLS, the TLS handler before it still reads the connection's end.
            guard let decoder = try? operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self),
                (try? operations.addHandler(InboundDiscarder(), position: .before(decoder.handler))) != nil
            else { return }
            operations.removeHandler(context: decoder, promise: nil)
        }
    }

    /// Drops every inbound byte; events (the connection's end among them) pass on.
    private final class InboundDiscarder: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
    }

    /// Writes `message` to the stream; a listener too far behind is disconnected instead.
    func send(_ message: ByteBuffer) {
        guard let context else { return }
        switch state.send() {
        case .write:
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in self.state.sent() }
            context.writeAndFlush(wrapOutboundOut(.body(message)), promise: written)
        case .disconnect(let listener):
            parts.hub.logSlowListener(listener)
            finish()
        case .drop:
            break
        }
    }

    /// Ends the stream and closes the connection.
    ///
    /// The end goes out with what is already queued when the socket takes it at once; a listener
    /// whose socket is full (the slow one being disconnected) is closed without it rather than waited for.
    func finish() {
        guard let context, state.finish() else { return }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.close(promise: nil)
    }
}
