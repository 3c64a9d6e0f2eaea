@testable import HeraldServer
import Testing

/// The event-stream handler's decisions (``EventStreamTakeover/StateMachine``), apart from any channel.
@Suite struct EventStreamTakeoverStateTests {
    @Test func aFreshConnectionMayBecomeAStreamButNotWhileAnAnswerIsOwed() {
        var state = EventStreamTakeover.StateMachine(maxUnsent: 4)
        #expect(state.mayTakeOver)
        state.relayedRequest()
        #expect(!state.mayTakeOver, "the router still owes an answer: a stream now would interleave with it")
        state.relayedRequest()
        state.relayedResponseEnd()
        #expect(!state.mayTakeOver)
        state.relayedResponseEnd()
        #expect(state.mayTakeOver)
        state.tookOver(listener: 7)
        #expect(state.isStreaming)
        #expect(!state.mayTakeOver)
    }

    @Test func aListenerFallingTooFarBehindIsDisconnected() {
        var state = EventStreamTakeover.StateMachine(maxUnsent: 2)
        state.tookOver(listener: 3)
        #expect(state.send() == .write)
        #expect(state.send() == .write)
        #expect(state.send() == .disconnect(listener: 3))
        state.sent()
        #expect(state.send() == .write, "one write completed, so there is room again")
    }

    @Test func nothingIsSentBeforeOrAfterTheStream() {
        var state = EventStreamTakeover.StateMachine(maxUnsent: 2)
        #expect(state.send() == .drop)
        state.tookOver(listener: 1)
        let first = state.finish()
        let second = state.finish()
        #expect(first)
        #expect(!second, "a stream ends once")
        #expect(state.send() == .drop)
    }

    @Test func theHubForgetsTheListenerWhenTheConnectionCloses() {
        var streaming = EventStreamTakeover.StateMachine(maxUnsent: 2)
        streaming.tookOver(listener: 5)
        let once = streaming.closed()
        let twice = streaming.closed()
        #expect(once == 5)
        #expect(twice == nil)

        var finished = EventStreamTakeover.StateMachine(maxUnsent: 2)
        finished.tookOver(listener: 6)
        _ = finished.finish()
        let listener = finished.closed()
        #expect(listener == 6, "an ended stream is still the hub's until its connection closes")

        var relaying = EventStreamTakeover.StateMachine(maxUnsent: 2)
        relaying.relayedRequest()
        let none = relaying.closed()
        #expect(none == nil)
    }
}
