import NIOCore
import NIOPosix
import Synchronization

/// The listening side of an HTTP/2 simulator: binds a port, hands each accepted connection to a pipeline builder,
/// and closes everything on ``stop()``.
final class SimulatorHTTP2Server: Sendable {
    /// The connections accepted, for `GOAWAY`, reset and the connection counters.
    let connections = SimulatorConnectionRegistry()
    private let serverChannel = Mutex<(any Channel)?>(nil)

    /// The bound port while the server runs.
    var port: Int? {
        self.serverChannel.withLock { $0?.localAddress?.port }
    }

    /// Binds `host`:`port` (0 picks a free one) on `group`, or the shared event loop group, and sets up each
    /// accepted connection with `initialize` on its event loop; returns the bound port.
    func start(
        host: String,
        port: Int,
        group: (any EventLoopGroup)?,
        initialize: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> Int {
        let channel = try await ServerBootstrap(group: group ?? MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try initialize(channel) }
            }
            .bind(host: host, port: port)
            .get()
        self.serverChannel.withLock { $0 = channel }
        return channel.localAddress?.port ?? port
    }

    /// Stops listening and closes every connection; returns whether the server was listening.
    func stop() async -> Bool {
        let channel = self.serverChannel.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        await self.connections.closeAll()
        return channel != nil
    }
}
