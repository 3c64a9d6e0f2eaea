import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Builds the pipeline of each connection an HTTP/2 simulator accepts: TLS with ALPN `h2` (when there is a TLS
/// context), then HTTP/2, with one ``SimulatorHTTP2StreamHandler`` per stream, for the service's processor.
struct SimulatorHTTP2Pipeline<Processor: SimulatorHTTP2RequestProcessor>: Sendable {
    /// The service (`APNs`, `FCM`), for logs.
    let serviceName: String
    let processor: Processor
    /// `nil` serves cleartext HTTP/2 (prior knowledge).
    let sslContext: NIOSSLContext?
    let registry: SimulatorConnectionRegistry
    let logger: Logger
    /// The `SETTINGS_MAX_CONCURRENT_STREAMS` nio-http2 is configured with.
    let maxConcurrentStreams: Int
    /// Makes the state of a connection that has agreed on HTTP/2, adding any handler the service needs in front of
    /// nio-http2; runs on the connection's event loop.
    let makeConnection: @Sendable (any Channel) throws -> Processor.Connection

    /// Sets up a freshly accepted connection; runs on its event loop.
    func initialize(_ channel: any Channel) throws {
        self.registry.connectionAccepted()
        guard let sslContext = self.sslContext else {
            try self.configureHTTP2(channel)
            return
        }
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(NIOSSLServerHandler(context: sslContext))
        // HTTP/2 is set up only after the handshake, so that the service can look at the client certificate (APNs
        // derives the stream limit of the very first SETTINGS frame from it).
        try sync.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                channel.eventLoop.makeCompletedFuture {
                    switch result {
                    case .negotiated("h2"), .fallback:
                        try self.configureHTTP2(channel)
                    case .negotiated:
                        // Only HTTP/2 is offered, as the simulated services speak nothing else, so a conforming
                        // client cannot have negotiated this.
                        channel.close(promise: nil)
                    }
                }
            }
        )
    }

    private func configureHTTP2(_ channel: any Channel) throws {
        let connection = try self.makeConnection(channel)
        // Registered before nio-http2 writes the first SETTINGS: a client that saw them may at once ask the
        // simulator to act on "every open connection", and this one must be among them.
        self.registry.register(connection)
        let boundConnection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        let sync = channel.pipeline.syncOperations
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: self.maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        let processor = self.processor
        _ = try sync.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: connectionConfiguration,
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration(),
            streamDelegate: SimulatorHTTP2StreamDelegate(
                connection: NIOLoopBound(connection, eventLoop: channel.eventLoop))
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let connection = boundConnection.value
                guard let streamID = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID),
                    connection.streamOpened(streamID)
                else {
                    return
                }
                try stream.pipeline.syncOperations.addHandler(
                    SimulatorHTTP2StreamHandler(processor: processor, connection: connection, streamID: streamID)
                )
            }
        }
        try sync.addHandler(SimulatorConnectionErrorHandler(serviceName: self.serviceName, logger: self.logger))
    }
}
