import Logging
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP/2 connection of a pool: opens the channel, starts streams on it, closes it.
///
/// Thread-safe front for the event-loop-bound ``HTTP2ConnectionCore``: calls from other threads
/// hop to the loop. Requests started from other threads are batched, so a burst costs one hop
/// and one flush instead of one per request.
final class HTTP2Connection: Sendable {
    private enum Phase {
        case idle
        case connecting
        case connected(HTTP2ConnectionCore)
        case closed
    }

    private struct LoopState {
        var phase: Phase = .idle
        var closeRequest: HTTP2ConnectionCloseReason?
    }

    private struct PendingStarts {
        var requests: [HTTP2RequestContext] = []
        var drainScheduled = false
    }

    /// The connection's ID in the pool.
    let id: HTTP2ConnectionID

    /// The loop the channel runs on.
    let eventLoop: any EventLoop

    private let settings: HTTP2ConnectionSettings
    private let delegate: any HTTP2ConnectionDelegate
    private let logger: Logger
    private let loopState: NIOLoopBoundBox<LoopState>
    private let pendingStarts = Mutex(PendingStarts())
    private let closePromise: EventLoopPromise<Void>

    /// Creates a connection; nothing happens until ``connect()``.
    ///
    /// - Parameters:
    ///   - id: The connection's ID in the pool.
    ///   - eventLoop: The loop for its channel.
    ///   - settings: The pool's shared connection settings.
    ///   - delegate: Receives the connection's events.
    ///   - logger: The pool's logger; the connection adds its own metadata.
    init(
        id: HTTP2ConnectionID,
        eventLoop: any EventLoop,
        settings: HTTP2ConnectionSettings,
        delegate: any HTTP2ConnectionDelegate,
        logger: Logger
    ) {
        self.id = id
        self.eventLoop = eventLoop
        self.settings = settings
        self.delegate = delegate
        var logger = logger
        logger[metadataKey: "h2.connection"] = "\(id)"
        self.logger = logger
        self.loopState = NIOLoopBoundBox.makeBoxSendingValue(LoopState(), eventLoop: eventLoop)
        self.closePromise = eventLoop.makePromise()
    }

    /// Completes once the connection is closed, or failed to open.
    var closeFuture: EventLoopFuture<Void> {
        self.closePromise.futureResult
    }

    /// Opens the TCP (and TLS) connection and the HTTP/2 pipeline; readiness is reported to the delegate.
    func connect() {
        self.eventLoop.execute {
            self.connectOnLoop()
        }
    }

    /// Opens a stream for each request; the pool has already counted them against this connection.
    func startStreams(_ requests: [HTTP2RequestContext]) {
        if self.eventLoop.inEventLoop {
            self.openStreams(requests)
        } else {
            self.enqueueStarts(requests)
        }
    }

    /// Adds requests for the loop to start, scheduling a drain unless one is pending already.
    private func enqueueStarts(_ requests: [HTTP2RequestContext]) {
        let mustSchedule = self.pendingStarts.withLock { pending in
            pending.requests.append(contentsOf: requests)
            defer { pending.drainScheduled = true }
            return !pending.drainScheduled
        }
        if mustSchedule {
            self.eventLoop.execute {
                self.drainPendingStarts()
            }
        }
    }

    /// Closes the connection; streams still in flight fail with `reason`.
    func close(reason: HTTP2ConnectionCloseReason) {
        self.eventLoop.execute {
            switch self.loopState.value.phase {
            case .connected(let core):
                core.close(reason: reason)
            case .idle, .connecting:
                // Acted on when the connect attempt completes.
                self.loopState.value.closeRequest = reason
            case .closed:
                break
            }
        }
    }
}

// MARK: - On the event loop

extension HTTP2Connection {
    private func drainPendingStarts() {
        let requests = self.pendingStarts.withLock { pending in
            pending.drainScheduled = false
            defer { pending.requests.removeAll(keepingCapacity: true) }
            return pending.requests
        }
        self.openStreams(requests)
    }

    private func openStreams(_ requests: [HTTP2RequestContext]) {
        guard case .connected(let core) = self.loopState.value.phase else {
            for request in requests {
                if request.noteUnsentBounce() {
                    self.delegate.streamFinished(on: self.id, retry: request, connectionUsable: false)
                } else {
                    request.finish(.failure(.connectionClosed("no connection could take the request")))
                    self.delegate.streamFinished(on: self.id, retry: nil, connectionUsable: false)
                }
            }
            return
        }
        core.openStreams(requests)
    }

    private func connectOnLoop() {
        guard case .idle = self.loopState.value.phase else { return }
        if let reason = self.loopState.value.closeRequest {
            self.finishClosed(reason: reason)
            return
        }
        if let error = self.settings.tlsConfigurationError {
            self.finishClosed(reason: .connectFailed(error))
            return
        }
        self.loopState.value.phase = .connecting
        self.logger.debug(
            "opening HTTP/2 connection",
            metadata: [
                "h2.host": "\(self.settings.host)", "h2.port": "\(self.settings.port)", "h2.tls": "\(self.settings.sslContext != nil)",
                "h2.engine": "\(self.settings.engine)",
            ]
        )

        let readyDeadline = NIODeadline.now() + self.settings.connectTimeout
        let bootstrap = ClientBootstrap(group: self.eventLoop)
            .connectTimeout(self.settings.connectTimeout)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try self.configurePipeline(channel, readyDeadline: readyDeadline)
                }
            }
        bootstrap.connect(host: self.settings.host, port: self.settings.port).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let channel):
                channel.closeFuture.assumeIsolated().whenComplete { _ in
                    self.loopState.value.phase = .closed
                    self.closePromise.succeed()
                }
                if let reason = self.loopState.value.closeRequest, case .connected(let core) = self.loopState.value.phase {
                    core.close(reason: reason)
                }
            case .failure(let error):
                self.finishClosed(reason: .connectFailed(String(describing: error)))
            }
        }
    }

    /// Builds the pipeline of the configured engine, synchronously in the channel initializer:
    /// `[TLS] → write coalescing → NIOHTTP2Handler → NIOHTTP2ConnectionHandler` for nio-http2,
    /// `[TLS] → NGHTTP2ConnectionHandler` for nghttp2 (which coalesces its own writes).
    private func configurePipeline(_ channel: any Channel, readyDeadline: NIODeadline) throws {
        let pipeline = channel.pipeline.syncOperations
        if let sslContext = self.settings.sslContext {
            try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: self.settings.sniHostname))
        }
        let core = HTTP2ConnectionCore(
            id: self.id,
            settings: self.settings,
            delegate: self.delegate,
            readyDeadline: readyDeadline,
            logger: self.logger
        )
        switch self.settings.engine {
        case .nio:
            try pipeline.addHandler(HTTP2WriteCoalescingHandler())
            let handler = NIOHTTP2ConnectionHandler(core: core)
            // No stream multiplexer: a child channel per stream costs more than the request itself, so
            // the connection handler reads and writes every stream's frames. Our SETTINGS disable push
            // and allow the server no streams; frames of streams the handler does not know are ignored.
            try pipeline.addHandler(NIOHTTP2Handler(
                mode: .client,
                frameDelegate: handler,
                connectionConfiguration: self.settings.http2.connection,
                streamConfiguration: self.settings.http2.stream
            ))
            try pipeline.addHandler(handler)
        case .nghttp2:
            try pipeline.addHandler(try NGHTTP2ConnectionHandler(core: core))
        }
        self.loopState.value.phase = .connected(core)
    }

    private func finishClosed(reason: HTTP2ConnectionCloseReason) {
        self.loopState.value.phase = .closed
        self.logger.debug("HTTP/2 connection attempt failed", metadata: ["h2.close_reason": "\(reason)"])
        self.delegate.connectionClosed(self.id, reason: reason, wasReady: false)
        self.closePromise.succeed()
    }
}
