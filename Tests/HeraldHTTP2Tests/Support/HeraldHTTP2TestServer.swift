import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A small HTTP/2 server for integration tests, with knobs to misbehave like APNs does.
///
/// Paths: `/hang` never answers; `/close-connection` closes the TCP connection; `/refuse-once`
/// resets the stream with REFUSED_STREAM the first time an `x-request-id` is seen; `/delay/<ms>`
/// answers after a delay; `/hints-and-trailers` answers 103 first and ends with trailers; anything else answers 200 (after `responseDelay`), echoing the body and
/// naming the connection in `x-connection`.
final class HeraldHTTP2TestServer: Sendable {
    /// How the server behaves.
    struct Options: Sendable {
        /// TLS settings; `nil` serves cleartext h2c.
        var tls: TLSConfiguration?
        /// `SETTINGS_MAX_CONCURRENT_STREAMS` announced on every new connection.
        var initialMaxConcurrentStreams = 100
        /// Raise the limit to this value some time after a connection's first response (like APNs after authentication).
        var raiseMaxConcurrentStreamsTo: Int?
        /// How long after the first response the limit is raised.
        var raiseDelay = TimeAmount.milliseconds(50)
        /// Lower the limit to `to` once a connection has received `afterRequests` requests.
        var lowerMaxConcurrentStreams: (to: Int, afterRequests: Int)?
        /// How long ordinary requests wait before being answered.
        var responseDelay = TimeAmount.zero
        /// Send GOAWAY on the first connection when it receives this many requests.
        var goAwayAfterRequests: Int?
        /// How many of the most recent streams the GOAWAY declares unprocessed.
        var goAwayUnprocessedStreams = 10
        /// The GOAWAY debug data.
        var goAwayDebugData = #"{"reason":"Shutdown"}"#
    }

    /// What the server observed.
    struct Statistics: Sendable {
        var connectionsAccepted = 0
        var requestsReceived = 0
        /// Answered requests per `x-request-id`.
        var processed: [String: Int] = [:]
        /// The most streams open at once on one connection.
        var maxConcurrentStreams = 0
        /// The most streams open at once on a connection while it announced a limit of 1.
        var maxConcurrentStreamsWhileLimitedToOne = 0
        /// Streams nio-http2 rejected because the client exceeded our announced limit.
        var streamLimitViolations = 0
        /// RST_STREAM frames received from the client.
        var resetsReceived = 0
        /// PING frames (not acknowledgements) received.
        var pingsReceived = 0
        /// Streams left unanswered because a GOAWAY declared them unprocessed.
        var droppedAfterGoAway = 0
        /// Streams reset with REFUSED_STREAM.
        var refusedStreams = 0
    }

    /// The port the server listens on (127.0.0.1).
    let port: Int
    let options: Options
    private let serverChannel: any Channel
    private let statisticsBox: NIOLockedValueBox<Statistics>
    private let connectionChannels: NIOLockedValueBox<[any Channel]>

    private init(
        port: Int,
        options: Options,
        serverChannel: any Channel,
        statistics: NIOLockedValueBox<Statistics>,
        connections: NIOLockedValueBox<[any Channel]>
    ) {
        self.port = port
        self.options = options
        self.serverChannel = serverChannel
        self.statisticsBox = statistics
        self.connectionChannels = connections
    }

    /// Starts a server on an ephemeral port.
    static func start(
        options: Options = Options(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> HeraldHTTP2TestServer {
        let statistics = NIOLockedValueBox(Statistics())
        let connections = NIOLockedValueBox<[any Channel]>([])
        let sslContext = try options.tls.map { try NIOSSLContext(configuration: $0) }
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let index = statistics.withLockedValue { stats -> Int in
                        stats.connectionsAccepted += 1
                        return stats.connectionsAccepted - 1
                    }
                    connections.withLockedValue { $0.append(channel) }
                    try Self.configure(channel, index: index, options: options, sslContext: sslContext, statistics: statistics)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return HeraldHTTP2TestServer(
            port: channel.localAddress!.port!,
            options: options,
            serverChannel: channel,
            statistics: statistics,
            connections: connections
        )
    }

    private static func configure(
        _ channel: any Channel,
        index: Int,
        options: Options,
        sslContext: NIOSSLContext?,
        statistics: NIOLockedValueBox<Statistics>
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        if let sslContext {
            try pipeline.addHandler(NIOSSLServerHandler(context: sslContext))
        }
        let connection = TestServerConnection(index: index, options: options, statistics: statistics)
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: options.initialMaxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        let boundConnection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        _ = try pipeline.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: configuration,
            streamConfiguration: .init()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(TestServerStreamHandler(connection: boundConnection.value))
            }
        }
        try pipeline.addHandler(TestServerConnectionHandler(connection: connection))
    }

    /// A snapshot of what the server observed.
    var statistics: Statistics {
        self.statisticsBox.withLockedValue { $0 }
    }

    /// Stops reading on every accepted connection, so PINGs go unanswered (a hung server).
    func freezeConnections() async throws {
        for channel in self.connectionChannels.withLockedValue({ $0 }) {
            try await channel.setOption(ChannelOptions.autoRead, value: false).get()
        }
    }

    /// Closes the listening socket and every connection.
    func shutdown() async throws {
        for channel in self.connectionChannels.withLockedValue({ $0 }) {
            try? await channel.close()
        }
        try await self.serverChannel.close()
    }
}
