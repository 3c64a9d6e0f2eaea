import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldHTTP2

@Suite("HTTP2WriteCoalescingHandler")
struct HTTP2WriteCoalescingHandlerTests {
    private func makeChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTP2WriteCoalescingHandler())
        return channel
    }

    private func buffer(_ text: String) -> ByteBuffer {
        ByteBuffer(string: text)
    }

    @Test("the writes between two flushes reach the next handler as one buffer, in order, at the flush")
    func coalescesUntilFlush() throws {
        let channel = try makeChannel()
        let first = channel.eventLoop.makePromise(of: Void.self)
        let third = channel.eventLoop.makePromise(of: Void.self)
        channel.write(buffer("HEADERS|"), promise: first)
        channel.write(buffer("DATA-HEADER|"), promise: nil)
        channel.write(buffer("payload"), promise: third)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)

        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == buffer("HEADERS|DATA-HEADER|payload"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        // Every write's promise completes with the joined write.
        try first.futureResult.wait()
        try third.futureResult.wait()
        #expect(try channel.finish().isClean)
    }

    @Test("a burst larger than the chunk size goes on in chunks, nothing lost")
    func passesOnLargeBursts() throws {
        let channel = try makeChannel()
        let piece = String(repeating: "x", count: 1000)
        let count = HTTP2WriteCoalescingHandler.chunkSize / 1000 + 10
        for _ in 0..<count {
            channel.write(buffer(piece), promise: nil)
        }
        channel.flush()
        var sizes: [Int] = []
        while let written = try channel.readOutbound(as: ByteBuffer.self) {
            sizes.append(written.readableBytes)
        }
        #expect(sizes.count == 2)
        #expect(sizes.first ?? 0 >= HTTP2WriteCoalescingHandler.chunkSize)
        #expect(sizes.reduce(0, +) == count * 1000)
        #expect(try channel.finish().isClean)
    }
}
