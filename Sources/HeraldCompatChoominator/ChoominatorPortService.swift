import HeraldCore
import HeraldIntake
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// One Choominator UDP port (registration or notification) on every address of its host: plain
/// JSON datagrams, never answered (compat.md §5.1).
///
/// Datagrams are handled one at a time per socket, in arrival order, each committed to the store
/// before the next is read; what the handler refuses is counted and logged, and changes nothing.
struct ChoominatorPortService<Handler: ChoominatorHandler>: Service, CustomStringConvertible {
    var description: String { "ChoominatorPortService(\(handler.port))" }

    let addresses: [SocketAddress]
    let handler: Handler
    /// The source addresses allowed (`server.acl.register` or `.publish`); `nil`: everyone.
    let acl: AccessList?
    /// The port's realm: `register` for registrations, `publish` for notifications.
    let realm: Realm
    /// The node's per-client limits; a datagram over its source's limit in ``realm`` is dropped.
    let rateLimiter: RateLimiter
    let metrics: FrontEndRequestCounter
    let rejections: ChoominatorRejectionLog
    let logger: Logger
    /// Learns the first bound socket's port (tests bind port 0).
    let onBound: @Sendable (Int) -> Void

    /// Largest datagram read (the largest UDP payload over IPv4); compat.md §5.1.
    static var maxDatagramSize: Int { 65_507 }

    func run() async throws {
        var channels: [NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>] = []
        do {
            for address in addresses {
                do {
                    channels.append(try await bind(address))
                } catch {
                    // `localhost` may name an IPv6 address on a host without IPv6: the others still serve.
                    logger.warning(
                        "cannot bind a Choominator port", metadata: ["port": "\(handler.port)", "address": "\(address)", "error": "\(error)"])
                }
            }
            guard let first = channels.first else { throw ChoominatorBindError(port: handler.port, addresses: addresses) }
            onBound(first.channel.localAddress?.port ?? addresses[0].port ?? 0)
        } catch {
            for channel in channels { try? await channel.channel.close() }
            throw error
        }
        for channel in channels {
            logger.info(
                "listening for Choominator datagrams",
                metadata: ["port": "\(handler.port)", "address": "\(channel.channel.localAddress.map { "\($0)" } ?? "?")"])
        }
        let bound = channels
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                for channel in bound {
                    group.addTask {
                        try await channel.executeThenClose { inbound, _ in
                            for try await envelope in inbound {
                                await receive(envelope.data, from: envelope.remoteAddress)
                            }
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            for channel in bound { channel.channel.close(promise: nil) }
        }
    }

    private func bind(_ address: SocketAddress) async throws -> NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>> {
        try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.maxDatagramSize))
            .bind(to: address) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Checks the source and its rate limit, hands the datagram over, and counts (and logs) what became of it.
    func receive(_ datagram: ByteBuffer, from address: SocketAddress) async {
        let source = address.ipAddress ?? "\(address)"
        do throws(ChoominatorRejection) {
            if let acl {
                guard let ip = IPAddress(source), acl.allows(ip) else { throw .unauthorized }
            }
            // Before the JSON is read: a flood is dropped at the least cost.
            guard rateLimiter.admit(realm, client: RateLimitClient(address: address.ipAddress)).isAdmitted else { throw .rateLimited }
            let result = try await handler.handle(datagram)
            metrics.count(handler.port, result: result)
        } catch {
            metrics.count(handler.port, result: "rejected", reason: error.reason)
            rejections.log(error, port: handler.port, address: source)
        }
    }
}
