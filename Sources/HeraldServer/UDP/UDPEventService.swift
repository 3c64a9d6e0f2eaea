import HeraldCore
import HeraldIntake
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The rs/pushd UDP event port (§13): compressed `POST`/`DELETE /event/...` datagrams, never answered.
public struct UDPEventService: Service, CustomStringConvertible {
    public var description: String { "UDPEventService" }

    private let host: String
    private let port: Int
    private let intake: Intake
    private let authorizer: Authorizer
    private let accessLog: Bool
    private let logger: Logger
    private let metricsFactory: (any MetricsFactory)?
    private let onBound: @Sendable (SocketAddress?) -> Void

    /// Largest datagram read; anything longer is truncated by the kernel and then fails to decompress.
    public static let maxDatagramSize = 65_507

    /// Creates the service; `onBound` learns the bound address (tests bind port 0).
    public init(
        host: String, port: Int, intake: Intake, authorizer: Authorizer, accessLog: Bool, logger: Logger,
        metricsFactory: (any MetricsFactory)? = nil,
        onBound: @escaping @Sendable (SocketAddress?) -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.intake = intake
        self.authorizer = authorizer
        self.accessLog = accessLog
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.onBound = onBound
    }

    public func run() async throws {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.maxDatagramSize))
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
                }
            }
        onBound(channel.channel.localAddress)
        logger.info("listening for UDP events", metadata: ["address": "\(channel.channel.localAddress.map { "\($0)" } ?? "?")"])
        try await withGracefulShutdownHandler {
            try await channel.executeThenClose { inbound, _ in
                for try await envelope in inbound {
                    await handle(envelope.data, from: envelope.remoteAddress)
                }
            }
        } onGracefulShutdown: {
            channel.channel.close(promise: nil)
        }
    }

    /// Handles one datagram; every outcome is only logged (§13.1).
    func handle(_ data: ByteBuffer, from address: SocketAddress) async {
        guard let datagram = EventDatagram.decode(data) else {
            logger.info("UDP Cannot decode message")
            count("undecodable")
            return
        }
        var publishID: String?
        let status = await act(on: datagram, from: address, publishID: &publishID)
        count(status == 204 ? "accepted" : "refused")
        if accessLog {
            // A publish's id, as HTTP answers it in `Herald-Publish-Id`: the key of `GET /publishes/<id>`.
            if let publishID {
                logger.info("UDP/\(datagram.method) \(datagram.path) \(status)", metadata: ["publish": "\(publishID)"])
            } else {
                logger.info("UDP/\(datagram.method) \(datagram.path) \(status)")
            }
        }
    }

    /// Acts on a datagram: answers the status HTTP would, and sets `publishID` when a publish was accepted.
    private func act(on datagram: EventDatagram, from address: SocketAddress, publishID: inout String?) async -> Int {
        guard let event = datagram.eventName else { return 404 }
        guard authorizer.allowsWithoutCredentials(realm: .publish, address: address) else { return 403 }
        // Dropped like any refused datagram; the access log shows the status HTTP would answer.
        guard authorizer.admitsWithoutCredentials(realm: .publish, address: address) else { return 429 }
        do {
            switch datagram.method {
            case "POST":
                let payload: BodyValue
                do {
                    payload = try FormBodyDecoder.decode(Array(datagram.query.utf8))
                } catch {
                    return 400
                }
                publishID = try await intake.publish(payload, to: event).id
                return 204
            case "DELETE":
                return try await intake.deleteEvent(event) ? 204 : 404
            default:
                return 404
            }
        } catch {
            // Datagrams are never answered; the access log shows the status the same request would
            // get over HTTP (§13.1), so the mapping is the HTTP front's.
            logger.info("UDP publish refused", metadata: ["error": "\(error.message)"])
            return Int(APIError(refusal: error).status.code)
        }
    }

    /// Counts a datagram by outcome (`accepted`, `refused`, `undecodable`).
    private func count(_ result: String) {
        guard let metricsFactory else { return }
        Counter(label: "herald_udp_datagrams_total", dimensions: [("result", result)], factory: metricsFactory).increment()
    }
}
