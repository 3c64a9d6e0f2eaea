import NIOCore

/// Puts the stream limit a connection advertises on the wire, and tells the connection when the client acknowledges
/// it, so that a new limit is enforced from the client's acknowledgement on (RFC 9113 §6.5.3), as nghttp2's and
/// Python h2's servers do: a client that opens streams under a raise it has not acknowledged yet is over the limit.
///
/// Outbound, it rewrites `SETTINGS_MAX_CONCURRENT_STREAMS` in the server's `SETTINGS` frames to the value the
/// connection currently advertises. nio-http2 enforces the limit it advertises by itself and ends a violating
/// connection with a `GOAWAY` that has no debug data, whereas APNs says "Maximum active streams violated for this
/// endpoint.". So nio-http2 is given a huge limit (``APNsConnectionState/nioStreamCeiling``), ``APNsConnectionState``
/// enforces the real one, and this handler, placed between the TLS handler and nio-http2, puts the real one on the
/// wire. It remembers the value of each `SETTINGS` frame it let out, in order, since the client acknowledges them in
/// order.
///
/// Inbound, it finds the client's `SETTINGS` acknowledgements by walking the frame headers (payloads are skipped, not
/// read). Bytes up to the end of an acknowledgement go on to nio-http2 first, and only then is the acknowledged
/// limit applied: nio-http2 handles a read's frames one after the other, so the streams a client opened before its
/// acknowledgement, even in the same read, are judged by the previous limit.
///
/// It also reports every outgoing `GOAWAY`, so that the connection can be closed after one nio-http2 sent on its own
/// for a protocol error (nio-http2 leaves the TCP connection open; APNs does not).
///
/// nio-http2 writes every frame as one buffer holding the 9-byte header and the payload, except DATA payloads,
/// which follow as a separate write; counting payload bytes keeps track of where the next frame header starts.
final class MaxConcurrentStreamsAdvertiser: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private static let frameHeaderLength = 9
    /// The client connection preface, `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, precedes the client's first frame.
    private static let clientPrefaceLength = 24
    private static let settingsFrameType: UInt8 = 0x4
    private static let goAwayFrameType: UInt8 = 0x7
    private static let ackFlag: UInt8 = 0x1
    private static let maxConcurrentStreamsIdentifier: UInt16 = 0x3

    private let advertisedValue: () -> Int
    private let acknowledged: (Int) -> Void
    private let goAwayWritten: (EventLoopFuture<Void>) -> Void
    /// Payload bytes of the current outbound frame still to come in later writes.
    private var pendingPayloadBytes = 0
    private var sawGoAway = false
    /// The limit each `SETTINGS` frame sent and not yet acknowledged carried, oldest first; `nil` for a frame
    /// without one.
    private var unacknowledgedLimits = CircularBuffer<Int?>(initialCapacity: 2)
    /// Bytes of the client preface still to come.
    private var inboundPrefaceBytes = MaxConcurrentStreamsAdvertiser.clientPrefaceLength
    /// Payload bytes of the current inbound frame still to come in later reads.
    private var inboundPayloadBytes = 0
    /// The start of an inbound frame header that a read ended in the middle of.
    private var inboundPartialHeader: [UInt8] = []

    /// - Parameters:
    ///   - advertisedValue: The limit to put on the wire, read when each SETTINGS frame goes out.
    ///   - acknowledged: Called with the limit of a SETTINGS frame the client has just acknowledged, after the
    ///     frames that came before the acknowledgement were handed to nio-http2.
    ///   - goAwayWritten: Called with the write's future whenever a `GOAWAY` frame goes out.
    init(
        advertisedValue: @escaping () -> Int,
        acknowledged: @escaping (Int) -> Void,
        goAwayWritten: @escaping (EventLoopFuture<Void>) -> Void
    ) {
        self.advertisedValue = advertisedValue
        self.acknowledged = acknowledged
        self.goAwayWritten = goAwayWritten
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
        var start = buffer.readerIndex
        var offset = start
        let end = buffer.writerIndex
        while offset < end {
            if self.inboundPrefaceBytes > 0 {
                let skipped = min(self.inboundPrefaceBytes, end - offset)
                offset += skipped
                self.inboundPrefaceBytes -= skipped
                continue
            }
            if self.inboundPayloadBytes > 0 {
                let skipped = min(self.inboundPayloadBytes, end - offset)
                offset += skipped
                self.inboundPayloadBytes -= skipped
                continue
            }
            guard let header = self.readInboundHeader(buffer, at: &offset, end: end) else { break }
            self.inboundPayloadBytes = header.length
            // An acknowledgement has no payload; one with a payload is nio-http2's to refuse.
            guard header.type == Self.settingsFrameType, header.flags & Self.ackFlag != 0, header.length == 0 else {
                continue
            }
            // The frames before the acknowledgement meet the limit they were sent under.
            if offset > start {
                context.fireChannelRead(self.wrapInboundOut(buffer.getSlice(at: start, length: offset - start)!))
                start = offset
            }
            // An acknowledgement of nothing is a protocol error nio-http2 answers; nothing changes here.
            if let popped = self.unacknowledgedLimits.popFirst(), let limit = popped {
                self.acknowledged(limit)
            }
        }
        if start == buffer.readerIndex {
            context.fireChannelRead(data)
        } else if start < end {
            context.fireChannelRead(self.wrapInboundOut(buffer.getSlice(at: start, length: end - start)!))
        }
    }

    /// Reads the frame header at `offset`, completing one a previous read ended in, and moves `offset` past it;
    /// `nil` when the read ends first (the bytes are kept for the next read).
    private func readInboundHeader(
        _ buffer: ByteBuffer,
        at offset: inout Int,
        end: Int
    ) -> (length: Int, type: UInt8, flags: UInt8)? {
        if self.inboundPartialHeader.isEmpty, end - offset >= Self.frameHeaderLength {
            let lengthHigh = buffer.getInteger(at: offset, as: UInt8.self)!
            let lengthLow = buffer.getInteger(at: offset + 1, as: UInt16.self)!
            let type = buffer.getInteger(at: offset + 3, as: UInt8.self)!
            let flags = buffer.getInteger(at: offset + 4, as: UInt8.self)!
            offset += Self.frameHeaderLength
            return (Int(lengthHigh) << 16 | Int(lengthLow), type, flags)
        }
        let taken = min(Self.frameHeaderLength - self.inboundPartialHeader.count, end - offset)
        self.inboundPartialHeader += buffer.getBytes(at: offset, length: taken)!
        offset += taken
        guard self.inboundPartialHeader.count == Self.frameHeaderLength else { return nil }
        let header = self.inboundPartialHeader
        self.inboundPartialHeader.removeAll(keepingCapacity: true)
        return (Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2]), header[3], header[4])
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .byteBuffer(var buffer):
            self.sawGoAway = false
            let changed = self.rewriteSettings(in: &buffer)
            let promise = self.sawGoAway ? (promise ?? context.eventLoop.makePromise()) : promise
            if changed {
                context.write(self.wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
            } else {
                context.write(data, promise: promise)
            }
            if self.sawGoAway, let promise {
                self.goAwayWritten(promise.futureResult)
            }
        case .fileRegion(let region):
            self.pendingPayloadBytes = max(0, self.pendingPayloadBytes - region.readableBytes)
            context.write(data, promise: promise)
        }
    }

    /// Walks the frames in `buffer`, patching SETTINGS frames (and remembering the limit of each) and noting GOAWAY
    /// frames; returns whether anything was changed.
    private func rewriteSettings(in buffer: inout ByteBuffer) -> Bool {
        var offset = buffer.readerIndex
        let end = buffer.writerIndex
        var changed = false
        while offset < end {
            if self.pendingPayloadBytes > 0 {
                let skipped = min(self.pendingPayloadBytes, end - offset)
                offset += skipped
                self.pendingPayloadBytes -= skipped
                continue
            }
            guard end - offset >= Self.frameHeaderLength,
                let lengthHigh = buffer.getInteger(at: offset, as: UInt8.self),
                let lengthLow = buffer.getInteger(at: offset + 1, as: UInt16.self),
                let type = buffer.getInteger(at: offset + 3, as: UInt8.self),
                let flags = buffer.getInteger(at: offset + 4, as: UInt8.self)
            else {
                // nio-http2 never splits a frame header across writes; nothing sensible to patch otherwise.
                return changed
            }
            let length = Int(lengthHigh) << 16 | Int(lengthLow)
            let payloadStart = offset + Self.frameHeaderLength
            let payloadEnd = min(payloadStart + length, end)
            if type == Self.goAwayFrameType {
                self.sawGoAway = true
            }
            if type == Self.settingsFrameType, flags & Self.ackFlag == 0 {
                var limit: Int?
                var entry = payloadStart
                while entry + 6 <= payloadEnd {
                    if buffer.getInteger(at: entry, as: UInt16.self) == Self.maxConcurrentStreamsIdentifier {
                        let advertised = self.advertisedValue()
                        buffer.setInteger(UInt32(clamping: advertised), at: entry + 2)
                        limit = advertised
                        changed = true
                    }
                    entry += 6
                }
                self.unacknowledgedLimits.append(limit)
            }
            self.pendingPayloadBytes = payloadStart + length - payloadEnd
            offset = payloadEnd
        }
        return changed
    }
}
