import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Builds the pipeline of each accepted connection: TLS (with ALPN `h2` and optional client certificates), then
/// HTTP/2 with the stream-limit machinery, then one ``APNsStreamHandler`` per stream.
struct APNsChannelInitializer: Sendable {
    let configuration: APNsSimulator.Configuration
    let store: APNsSimulatorStore
    let processor: APNsRequestProcessor
    let sslContext: NIOSSLContext?

    /// Sets up a freshly accepted connection; runs on its event loop.
    func initialize(_ channel: any Channel) throws {
        self.store.updateStatistics { $0.connections += 1 }
        guard let sslContext = self.sslContext else {
            try self.configureHTTP2(channel, certificateTopic: nil)
            return
        }
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(NIOSSLServerHandler(context: sslContext))
        // HTTP/2 is set up only after the handshake: the client certificate decides the stream limit of the very
        // first SETTINGS frame.
        try sync.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                channel.eventLoop.makeCompletedFuture {
                    switch result {
                    case .negotiated("h2"), .fallback:
                        let handler = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
                        let topic = handler.peerCertificate.flatMap { certificate in
                            (try? certificate.toDERBytes()).flatMap(
                                SimulatorCertificateAuthority.topic(ofCertificateDER:))
                        }
                        try self.configureHTTP2(channel, certificateTopic: topic)
                    case .negotiated:
                        // APNs speaks HTTP/2 only.
                        channel.close(promise: nil)
                    }
                }
            }
        )
    }

    private func configureHTTP2(_ channel: any Channel, certificateTopic: String?) throws {
        let connection = APNsConnectionState(
            channel: channel,
            store: self.store,
            configuration: self.configuration,
            certificateTopic: certificateTopic
        )
        let boundConnection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(
            MaxConcurrentStreamsAdvertiser(
                advertisedValue: { connection.advertisedMaxConcurrentStreams },
                goAwayWritten: { connection.goAwayWritten($0) }
            )
        )

        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: APNsConnectionState.nioStreamCeiling),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        let processor = self.processor
        _ = try sync.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: connectionConfiguration,
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration(),
            streamDelegate: APNsStreamDelegate(connection: boundConnection)
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let connection = boundConnection.value
                guard let streamID = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID),
                    connection.streamOpened(streamID)
                else {
                    return
                }
                try stream.pipeline.syncOperations.addHandler(
                    APNsStreamHandler(processor: processor, connection: connection, streamID: streamID)
                )
            }
        }
        try sync.addHandler(APNsConnectionErrorHandler(logger: self.configuration.logger))

        let handle = APNsConnectionHandle(channel: channel, state: boundConnection)
        let key = ObjectIdentifier(channel)
        let store = self.store
        store.state.withLock { $0.connections[key] = handle }
        channel.closeFuture.whenComplete { _ in
            _ = store.state.withLock { $0.connections.removeValue(forKey: key) }
        }
    }
}
