import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A pool of HTTP/2 connections to one origin that sends one request per stream.
///
/// Connections open lazily and grow up to ``HTTP2ClientConfiguration/maxConnections`` while every
/// open one is at the server's `SETTINGS_MAX_CONCURRENT_STREAMS`; beyond that requests wait in a
/// bounded queue. The pool follows the server's limit as it changes, retries requests the server
/// declined without processing (REFUSED_STREAM, streams above a GOAWAY's last stream ID), puts a
/// deadline on every stream, and replaces connections that stop answering PINGs.
///
/// Decisions live in ``HTTP2PoolStateMachine`` behind one lock; channel work happens on the
/// connections' event loops, outside the lock.
public final class HTTP2ConnectionPool: Sendable {
    struct State: Sendable {
        var machine: HTTP2PoolStateMachine<HTTP2RequestContext>
        /// Every connection object not yet fully closed, including draining ones the machine has forgotten.
        var connections: [HTTP2ConnectionID: HTTP2Connection] = [:]
    }

    let configuration: HTTP2ClientConfiguration
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    let settings: HTTP2ConnectionSettings
    /// Runs the pool's own timers (queue deadlines, reconnect backoff).
    let timerLoop: any EventLoop
    let state: NIOLockedValueBox<State>

    /// Creates a pool; no connection opens until the first request.
    ///
    /// - Parameters:
    ///   - configuration: Where to connect, limits and timeouts.
    ///   - eventLoopGroup: The loops connections run on; each new connection takes the next loop.
    ///   - logger: Receives connection lifecycle events (never per-request events).
    public init(
        configuration: HTTP2ClientConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        var logger = logger
        logger[metadataKey: "h2.origin"] = "\(configuration.host):\(configuration.port)"
        self.logger = logger
        self.settings = HTTP2ConnectionSettings(configuration: configuration)
        self.timerLoop = eventLoopGroup.next()
        let machine = HTTP2PoolStateMachine<HTTP2RequestContext>(
            configuration: .init(
                maxConnections: max(1, configuration.maxConnections),
                maxConcurrentStreamsPerConnection: max(1, configuration.maxConcurrentStreamsPerConnection),
                maxQueuedRequests: max(0, configuration.maxQueuedRequests),
                backoff: configuration.reconnectBackoff,
                failWaitersAfterConnectFailures: max(0, configuration.failWaitersAfterConnectFailures)
            )
        )
        self.state = NIOLockedValueBox(State(machine: machine))
    }

    /// Sends `request` on a stream and returns the complete response.
    ///
    /// Waits for a free stream when every connection is at its limit. A request the server
    /// declined without processing is sent again transparently; other failures are thrown.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - deadline: How long the whole exchange may take, including the wait for a stream;
    ///     ``HTTP2ClientConfiguration/streamDeadline`` when `nil`.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``HTTP2ClientError`` on deadline, connection, stream or queue failure, pool
    ///   shutdown or task cancellation.
    public func execute(_ request: HTTP2Request, deadline: Duration? = nil) async throws(HTTP2ClientError) -> HTTP2Response {
        let context = HTTP2RequestContext(
            request: request,
            deadline: .now() + TimeAmount(deadline ?? self.configuration.streamDeadline)
        )
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: HTTP2RequestContext.Continuation) in
                if context.start(continuation) {
                    self.submit(contentsOf: [context])
                }
            }
        } onCancel: {
            self.cancel(context)
        }
        return try result.get()
    }

    /// Opens a connection ahead of a burst of requests if the pool has none, so that the TLS and
    /// HTTP/2 handshakes overlap whatever the caller does before sending; returns at once.
    ///
    /// The connection stays open like any other (idle PINGs keep it alive). A server that cannot
    /// be reached is retried only once requests wait, as usual.
    public func warmUp() {
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.warmUp(), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    /// Closes every connection once its in-flight streams finish; later requests use new connections.
    ///
    /// Use it when the server wants a fresh connection, such as after APNs' `ExpiredProviderToken`
    /// (providers.md §1.7).
    public func resetConnections() {
        self.logger.debug("resetting HTTP/2 connections")
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.resetConnections(), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    /// Fails queued requests, closes every connection (failing in-flight requests) and waits for them to close.
    public func shutdown() async {
        let (actions, connections) = self.state.withLockedValue { state in
            (self.resolve(state.machine.shutdown(), in: &state), Array(state.connections.values))
        }
        self.perform(actions, closeReason: .shutdown)
        for connection in connections {
            connection.close(reason: .shutdown)
        }
        for connection in connections {
            try? await connection.closeFuture.get()
        }
        self.logger.debug("HTTP/2 connection pool shut down")
    }

    /// A snapshot of connections, streams and queue, for metrics.
    public var statistics: HTTP2PoolStatistics {
        self.state.withLockedValue { $0.machine.statistics }
    }
}
