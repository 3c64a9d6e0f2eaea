import HeraldSimulators
import NIOCore
import NIOHPACK
import NIOPosix
import NIOSSL

/// A deliberately bare HTTP/2 client that writes frames itself, so a test can do what nio-http2's client refuses
/// to do (open more streams than the server allows) and see every frame the server sends on stream 0.
final class RawHTTP2Connection {
    private let channel: any Channel
    private var frames: AsyncStream<RawFrame>.Iterator
    private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
    private let port: Int

    private init(channel: any Channel, frames: AsyncStream<RawFrame>, port: Int) {
        self.channel = channel
        self.frames = frames.makeAsyncIterator()
        self.port = port
    }

    /// Connects over TLS with ALPN `h2` (presenting `clientCertificate` when given), or in cleartext when
    /// `authority` is `nil`; the preface goes out at once. Only the first `acknowledgingSettings` SETTINGS frames of
    /// the server are acknowledged on receipt; ``settingsAckFrame()`` acknowledges the others.
    static func connect(
        port: Int,
        authority: SimulatorCertificateAuthority?,
        clientCertificate: SimulatorCertificateAuthority.ClientCertificate? = nil,
        acknowledgingSettings: Int = .max
    ) async throws -> RawHTTP2Connection {
        let sslContext = try authority.map {
            try NIOSSLContext(configuration: $0.clientTLSConfiguration(clientCertificate: clientCertificate))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RawFrame.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: "localhost"))
                    }
                    try sync.addHandler(ByteToMessageHandler(RawFrameDecoder()))
                    try sync.addHandler(
                        RawFrameCollector(continuation: continuation, acknowledgingSettings: acknowledgingSettings))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawHTTP2Connection(channel: channel, frames: stream, port: port)
    }

    /// Encodes one frame.
    static func frame(type: UInt8, flags: UInt8, streamID: UInt32, payload: ByteBuffer? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        let length = payload?.readableBytes ?? 0
        buffer.writeInteger(UInt8(length >> 16))
        buffer.writeInteger(UInt16(length & 0xFFFF))
        buffer.writeInteger(type)
        buffer.writeInteger(flags)
        buffer.writeInteger(streamID)
        if var payload {
            buffer.writeBuffer(&payload)
        }
        return buffer
    }

    /// Sends a request's HEADERS on `streamID` (END_STREAM when `endStream`).
    func sendHeaders(streamID: UInt32, path: String, headers: [(String, String)], endStream: Bool) async throws {
        try await self.send([self.headersFrame(streamID: streamID, path: path, headers: headers, endStream: endStream)])
    }

    /// A request's HEADERS frame on `streamID`, HPACK-encoded with this connection's encoder: send the frames made
    /// with it in the order they were made.
    func headersFrame(streamID: UInt32, path: String, headers: [(String, String)], endStream: Bool) throws -> ByteBuffer {
        var block = HPACKHeaders([
            (":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "127.0.0.1:\(self.port)"),
        ])
        block.add(contentsOf: headers)
        var payload = ByteBuffer()
        try self.encoder.encode(headers: block, to: &payload)
        // END_HEADERS, plus END_STREAM when asked.
        let flags: UInt8 = endStream ? 0x5 : 0x4
        return Self.frame(type: RawFrame.headers, flags: flags, streamID: streamID, payload: payload)
    }

    /// An empty SETTINGS frame with the ACK flag.
    static func settingsAckFrame() -> ByteBuffer {
        Self.frame(type: RawFrame.settings, flags: 0x1, streamID: 0)
    }

    /// Sends `frames` in one write, so that the server reads them together, in this order.
    func send(_ frames: [ByteBuffer]) async throws {
        var buffer = ByteBuffer()
        for var frame in frames {
            buffer.writeBuffer(&frame)
        }
        try await self.channel.writeAndFlush(buffer)
    }

    /// Sends a DATA frame on `streamID`.
    func sendData(streamID: UInt32, body: String, endStream: Bool) async throws {
        try await self.channel.writeAndFlush(
            Self.frame(
                type: RawFrame.data, flags: endStream ? 0x1 : 0, streamID: streamID, payload: ByteBuffer(string: body))
        )
    }

    /// The next frame from the server, or `nil` once the connection is closed.
    func nextFrame() async -> RawFrame? {
        await self.frames.next()
    }

    /// Reads frames until one satisfies `predicate`, returning it and every frame before it; `nil` if the
    /// connection closed first.
    func frames(until predicate: (RawFrame) -> Bool) async -> (match: RawFrame, before: [RawFrame])? {
        var before: [RawFrame] = []
        while let frame = await self.nextFrame() {
            if predicate(frame) {
                return (frame, before)
            }
            before.append(frame)
        }
        return nil
    }

    /// Reads and discards frames until the server closes the connection; returns how many were read.
    func drainUntilClosed() async -> Int {
        var count = 0
        while await self.nextFrame() != nil {
            count += 1
        }
        return count
    }

    /// Closes the connection.
    func close() async {
        try? await self.channel.close()
    }
}
