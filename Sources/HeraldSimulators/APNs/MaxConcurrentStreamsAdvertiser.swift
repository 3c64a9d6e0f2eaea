import NIOCore

/// Rewrites `SETTINGS_MAX_CONCURRENT_STREAMS` in the server's outgoing `SETTINGS` frames to the value the
/// connection currently advertises.
///
/// nio-http2 enforces the limit it advertises by itself and ends a violating connection with a `GOAWAY` that has
/// no debug data, whereas APNs says "Maximum active streams violated for this endpoint.". So nio-http2 is given a
/// huge limit (``APNsConnectionState/nioStreamCeiling``), ``APNsConnectionState`` enforces the real one, and this
/// handler, placed between the TLS handler and nio-http2, puts the real one on the wire.
///
/// It also reports every outgoing `GOAWAY`, so that the connection can be closed after one nio-http2 sent on its own
/// for a protocol error (nio-http2 leaves the TCP connection open; APNs does not).
///
/// nio-http2 writes every frame as one buffer holding the 9-byte header and the payload, except DATA payloads,
/// which follow as a separate write; counting payload bytes keeps track of where the next frame header starts.
final class MaxConcurrentStreamsAdvertiser: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private static let frameHeaderLength = 9
    private static let settingsFrameType: UInt8 = 0x4
    private static let goAwayFrameType: UInt8 = 0x7
    private static let ackFlag: UInt8 = 0x1
    private static let maxConcurrentStreamsIdentifier: UInt16 = 0x3

    private let advertisedValue: () -> Int
    private let goAwayWritten: (EventLoopFuture<Void>) -> Void
    /// Payload bytes of the current frame still to come in later writes.
    private var pendingPayloadBytes = 0
    private var sawGoAway = false

    /// - Parameters:
    ///   - advertisedValue: The limit to put on the wire, read when each SETTINGS frame goes out.
    ///   - goAwayWritten: Called with the write's future whenever a `GOAWAY` frame goes out.
    init(advertisedValue: @escaping () -> Int, goAwayWritten: @escaping (EventLoopFuture<Void>) -> Void) {
        self.advertisedValue = advertisedValue
        self.goAwayWritten = goAwayWritten
    }

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

    /// Walks the frames in `buffer`, patching SETTINGS frames and noting GOAWAY frames; returns whether anything was
    /// changed.
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
                var entry = payloadStart
                while entry + 6 <= payloadEnd {
                    if buffer.getInteger(at: entry, as: UInt16.self) == Self.maxConcurrentStreamsIdentifier {
                        buffer.setInteger(UInt32(clamping: self.advertisedValue()), at: entry + 2)
                        changed = true
                    }
                    entry += 6
                }
            }
            self.pendingPayloadBytes = payloadStart + length - payloadEnd
            offset = payloadEnd
        }
        return changed
    }
}
