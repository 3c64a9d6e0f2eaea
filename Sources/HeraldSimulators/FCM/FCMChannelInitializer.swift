import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Builds the pipeline of each accepted connection: TLS with ALPN `h2`, then HTTP/2 with one ``FCMStreamHandler``
/// per stream.
struct FCMChannelInitializer: Sendable {
    let configuration: FCMSimulator.Configuration
    let store: FCMSimulatorStore
    let processor: FCMRequestProcessor
    let sslContext: NIOSSLContext?

    /// Sets up a freshly accepted connection; runs on its event loop.
    func initialize(_ channel: any Channel) throws {
        self.store.updateStatistics { $0.connections += 1 }
        guard let sslContext = self.sslContext else {
            try self.configureHTTP2(channel)
            return
        }
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(NIOSSLServerHandler(context: sslContext))
        try sync.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                channel.eventLoop.makeCompletedFuture {
                    switch result {
                    case .negotiated("h2"), .fallback:
                        try self.configureHTTP2(channel)
                    case .negotiated:
                        // Only HTTP/2 is offered, so nothing else can be negotiated with a conforming client.
                        channel.close(promise: nil)
                    }
                }
            }
        )
    }

    private func configureHTTP2(_ channel: any Channel) throws {
        let connection = FCMConnectionState(channel: channel, store: self.store, configuration: self.configuration)
        let boundConnection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        let sync = channel.pipeline.syncOperations
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: self.configuration.maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        let processor = self.processor
        _ = try sync.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: connectionConfiguration,
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration(),
            streamDelegate: FCMStreamDelegate(connection: boundConnection)
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let connection = boundConnection.value
                guard let streamID = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID),
                    connection.streamOpened(streamID)
                else {
                    return
                }
                try stream.pipeline.syncOperations.addHandler(
                    FCMStreamHandler(processor: processor, connection: connection, streamID: streamID)
                )
            }
        }
        try sync.addHandler(FCMConnectionErrorHandler(logger: self.configuration.logger))

        let handle = FCMConnectionHandle(channel: channel, state: boundConnection)
        let key = ObjectIdentifier(channel)
        let store = self.store
        store.state.withLock { $0.connections[key] = handle }
        channel.closeFuture.whenComplete { _ in
            _ = store.state.withLock { $0.connections.removeValue(forKey: key) }
        }
    }
}
