import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 connection, whose task stands aside when the connection's first request
/// is an event stream that ``EventStreamTakeover`` serves.
///
/// Every connection has a task of its own, and a task keeps the stack slabs of the deepest call it
/// ever made until it ends. Hummingbird's task, waiting for the next request, already holds about
/// 3.3 KB of them; a listener that never sends one is served here by a task that only waits for
/// the connection to close.
struct EventStreamHTTP1Channel: ServerChildChannel {
    /// Hummingbird's connection and, where the takeover handler is installed, its verdict on the
    /// first request (`true`: it is an event stream the handler serves).
    struct Value: ServerChildChannelValue {
        let connection: HTTP1Channel.Value
        let firstRequestIsEventStream: EventLoopFuture<Bool>?
        var channel: any Channel { connection.channel }
    }

    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            // NIO keeps each connection's receive buffer for its next read: 2 KiB by default, for
            // request heads of a few hundred bytes. It grows for larger reads (bodies) by itself.
            try channel.syncOptions?.setOption(
                ChannelOptions.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).map { connection in
            let takeover = try? channel.pipeline.syncOperations.handler(type: EventStreamTakeover.self)
            return Value(connection: connection, firstRequestIsEventStream: takeover?.firstRequestIsEventStream)
        }
    }

    func handle(value: Value, logger: Logger) async {
        if let verdict = value.firstRequestIsEventStream, (try? await verdict.get()) == true {
            let channel = value.channel
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            return
        }
        await base.handle(value: value.connection, logger: logger)
    }
}
