import NIOCore

/// Splits the inbound byte stream into frames.
struct RawFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = RawFrame

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes >= 9,
            let high = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let low = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt16.self)
        else { return .needMoreData }
        let length = Int(high) << 16 | Int(low)
        guard buffer.readableBytes >= 9 + length else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 3)
        let type = buffer.readInteger(as: UInt8.self)!
        let flags = buffer.readInteger(as: UInt8.self)!
        let streamID = buffer.readInteger(as: UInt32.self)! & 0x7FFF_FFFF
        let payload = buffer.readSlice(length: length)!
        context.fireChannelRead(
            Self.wrapInboundOut(RawFrame(type: type, flags: flags, streamID: streamID, payload: payload)))
        return .continue
    }
}
