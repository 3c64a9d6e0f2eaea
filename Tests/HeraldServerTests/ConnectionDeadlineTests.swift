import HeraldServerTLS
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// ``ConnectionDeadline`` on an embedded event loop, whose time the test moves: one timer per
/// connection, re-armed by assignment, must still close at the deadline in force.
@Suite struct ConnectionDeadlineTests {
    /// A handler whose context the deadline closes the channel through.
    final class Probe: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
    }

    /// An active embedded channel, its probe's context and a deadline.
    private func makeConnection() throws -> (EmbeddedChannel, ChannelHandlerContext, ConnectionDeadline) {
        let channel = EmbeddedChannel(handler: Probe())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let context = try channel.pipeline.syncOperations.context(handlerType: Probe.self)
        return (channel, context, ConnectionDeadline(logger: Logger(label: "test")))
    }

    @Test func aDeadlineMovedLaterClosesAtItsNewTime() throws {
        let (channel, context, deadline) = try makeConnection()
        deadline.arm(context, in: .seconds(1), waitingFor: "request head")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        deadline.arm(context, in: .seconds(1), waitingFor: "request body")
        // Past the first deadline: its timer fires, finds the later one and waits on.
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(600))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(400))
        #expect(!channel.isActive)
    }

    @Test func aDeadlineMovedEarlierClosesAtItsNewTime() throws {
        let (channel, context, deadline) = try makeConnection()
        deadline.arm(context, in: .seconds(5), waitingFor: "request head")
        deadline.arm(context, in: .seconds(1), waitingFor: "request body")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aDisarmedDeadlineClosesNothingAndCanBeArmedAgain() throws {
        let (channel, context, deadline) = try makeConnection()
        deadline.arm(context, in: .seconds(1), waitingFor: "request head")
        deadline.disarm()
        #expect(!deadline.isArmed)
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive)
        deadline.arm(context, in: .seconds(1), waitingFor: "request head")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aStoppedDeadlineClosesNothing() throws {
        let (channel, context, deadline) = try makeConnection()
        deadline.arm(context, in: .seconds(1), waitingFor: "TLS handshake")
        deadline.stop()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive)
        _ = try channel.finish()
    }
}
