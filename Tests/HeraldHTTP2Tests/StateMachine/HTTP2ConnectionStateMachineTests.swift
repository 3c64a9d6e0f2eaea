import NIOCore
import NIOHTTP2
import Testing

@testable import HeraldHTTP2

@Suite("HTTP2ConnectionStateMachine")
struct HTTP2ConnectionStateMachineTests {
    @Test("the first SETTINGS frame makes the connection ready; later ones change the limit up and down")
    func settings() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1000)
        #expect(!machine.canOpenStreams)
        let step1 = machine.receivedSettings(maxConcurrentStreams: 1)
        #expect(step1 == .ready(maxConcurrentStreams: 1))
        #expect(machine.canOpenStreams)
        let step2 = machine.receivedSettings(maxConcurrentStreams: 100)
        #expect(step2 == .maxConcurrentStreamsChanged(100))
        let step3 = machine.receivedSettings(maxConcurrentStreams: nil)
        #expect(step3 == .none)
        let step4 = machine.receivedSettings(maxConcurrentStreams: 100)
        #expect(step4 == .none)
        let step5 = machine.receivedSettings(maxConcurrentStreams: 1)
        #expect(step5 == .maxConcurrentStreamsChanged(1))
        #expect(machine.maxConcurrentStreams == 1)
    }

    @Test("before the server's first SETTINGS no stream may open, whatever the local cap; then exactly its limit, followed down and up")
    func noStreamBeforeSettings() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1000)
        #expect(!machine.canOpenStreams)
        #expect(machine.maxConcurrentStreams == 0)
        let mustClose = machine.tlsHandshakeCompleted(negotiatedProtocol: "h2")
        #expect(!mustClose)
        machine.receivedData()
        #expect(!machine.canOpenStreams)
        #expect(machine.maxConcurrentStreams == 0)

        let first = machine.receivedSettings(maxConcurrentStreams: 1)
        #expect(first == .ready(maxConcurrentStreams: 1))
        #expect(machine.canOpenStreams)
        #expect(machine.maxConcurrentStreams == 1)
        let raised = machine.receivedSettings(maxConcurrentStreams: 50)
        #expect(raised == .maxConcurrentStreamsChanged(50))
        #expect(machine.maxConcurrentStreams == 50)
        let lowered = machine.receivedSettings(maxConcurrentStreams: 10)
        #expect(lowered == .maxConcurrentStreamsChanged(10))
        #expect(machine.maxConcurrentStreams == 10)
        // A SETTINGS frame without the parameter leaves the limit where it was.
        let unchanged = machine.receivedSettings(maxConcurrentStreams: nil)
        #expect(unchanged == .none)
        #expect(machine.maxConcurrentStreams == 10)
    }

    @Test("a first SETTINGS frame with a limit of 0 makes the connection ready with no stream")
    func firstSettingsZero() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1000)
        let first = machine.receivedSettings(maxConcurrentStreams: 0)
        #expect(first == .ready(maxConcurrentStreams: 0))
        #expect(machine.maxConcurrentStreams == 0)
        let raised = machine.receivedSettings(maxConcurrentStreams: 5)
        #expect(raised == .maxConcurrentStreamsChanged(5))
    }

    @Test("no limit from the server means the local cap; a huge limit is capped too")
    func unlimited() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 500)
        let step6 = machine.receivedSettings(maxConcurrentStreams: nil)
        #expect(step6 == .ready(maxConcurrentStreams: 500))
        let step7 = machine.receivedSettings(maxConcurrentStreams: UInt32.max)
        #expect(step7 == .none)
        let step8 = machine.receivedSettings(maxConcurrentStreams: 200)
        #expect(step8 == .maxConcurrentStreamsChanged(200))
    }

    @Test("GOAWAY drains the connection and tells which streams were not processed")
    func goAway() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1000)
        _ = machine.receivedSettings(maxConcurrentStreams: 100)
        let step9 = machine.receivedGoAway(lastStreamID: 7, reason: "Shutdown")
        #expect(step9 == .drain(reason: "Shutdown"))
        #expect(!machine.canOpenStreams)
        #expect(machine.state == .draining)
        #expect(machine.wasNotProcessed(9))
        #expect(!machine.wasNotProcessed(7))
        #expect(!machine.wasNotProcessed(5))
        // A second, lower GOAWAY narrows the processed range; it is not reported again.
        let step10 = machine.receivedGoAway(lastStreamID: 3, reason: "Shutdown")
        #expect(step10 == .none)
        #expect(machine.wasNotProcessed(5))
        #expect(machine.closeReason == .goAway("Shutdown"))
        #expect(machine.closeReason?.inFlightError.kind == .goAway)
    }

    @Test("GOAWAY before the first SETTINGS closes the connection as a failed attempt")
    func goAwayBeforeReady() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1000)
        let step11 = machine.receivedGoAway(lastStreamID: 0, reason: "Shutdown")
        #expect(step11 == .close)
        let step12 = machine.channelInactive(error: nil)
        #expect(step12 == .init(wasReady: false, reason: .goAway("Shutdown")))
    }

    @Test("an idle connection sends a PING; a missing PONG closes it")
    func keepalive() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1000)
        let step13 = machine.keepaliveTimerFired()
        #expect(!step13)  // not ready yet
        _ = machine.receivedSettings(maxConcurrentStreams: 10)
        machine.receivedData()
        let step14 = machine.keepaliveTimerFired()
        #expect(!step14)  // something was read during the interval
        let step15 = machine.keepaliveTimerFired()
        #expect(step15)  // silence: PING
        let step16 = machine.keepaliveTimerFired()
        #expect(!step16)  // one PING at a time
        let step17 = machine.receivedPingAck()
        #expect(step17)
        let step18 = machine.receivedPingAck()
        #expect(!step18)
        let step19 = machine.pingTimeoutFired()
        #expect(!step19)  // answered: the timeout is stale
        let step20 = machine.keepaliveTimerFired()
        #expect(step20)
        let step21 = machine.pingTimeoutFired()
        #expect(step21)
        #expect(machine.closeReason == .pingTimeout)
        #expect(machine.closeReason?.inFlightError.kind == .connectionClosed)
        let step22 = machine.channelInactive(error: nil)
        #expect(step22?.reason == .pingTimeout)
    }

    @Test("ALPN must select h2")
    func alpn() {
        var good = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        let step23 = good.tlsHandshakeCompleted(negotiatedProtocol: "h2")
        #expect(!step23)
        var http1 = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        let step24 = http1.tlsHandshakeCompleted(negotiatedProtocol: "http/1.1")
        #expect(step24)
        #expect(http1.closeReason == .alpnMismatch("http/1.1"))
        var none = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        let step25 = none.tlsHandshakeCompleted(negotiatedProtocol: nil)
        #expect(step25)
    }

    @Test("the connect timeout only matters before readiness")
    func readyTimeout() {
        var waiting = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        let step26 = waiting.readyTimeoutFired()
        #expect(step26)
        let step27 = waiting.channelInactive(error: nil)
        #expect(step27 == .init(wasReady: false, reason: .readyTimeout))
        var ready = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        _ = ready.receivedSettings(maxConcurrentStreams: 1)
        let step28 = ready.readyTimeoutFired()
        #expect(!step28)
    }

    @Test("closing is requested once and the closure is reported once, keeping the first reason")
    func closing() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        _ = machine.receivedSettings(maxConcurrentStreams: 1)
        let step29 = machine.closeRequested(.shutdown)
        #expect(step29)
        let step30 = machine.closeRequested(.drained)
        #expect(!step30)
        let step31 = machine.channelInactive(error: "ECONNRESET")
        #expect(step31 == .init(wasReady: true, reason: .shutdown))
        let step32 = machine.channelInactive(error: nil)
        #expect(step32 == nil)
        #expect(HTTP2ConnectionCloseReason.shutdown.inFlightError.kind == .shutdown)
    }

    @Test("an unexpected close reports the last channel error")
    func unexpectedClose() {
        var machine = HTTP2ConnectionStateMachine(maxConcurrentStreamsCap: 1)
        _ = machine.receivedSettings(maxConcurrentStreams: 1)
        let closed = machine.channelInactive(error: "Connection reset by peer")
        #expect(closed == .init(wasReady: true, reason: .remoteClosed("Connection reset by peer")))
        let error = closed!.reason.inFlightError
        #expect(error.kind == .connectionClosed && error.isRetryable && error.mayHaveBeenProcessed)
    }

    @Test("GOAWAY debug data: APNs JSON reason, plain text, or just the error code")
    func goAwayReason() {
        #expect(HTTP2GoAwayReason.describe(errorCode: .noError, debugData: ByteBuffer(string: #"{"reason":"Shutdown"}"#)) == "Shutdown")
        #expect(
            HTTP2GoAwayReason.describe(errorCode: .protocolError, debugData: ByteBuffer(string: "Maximum active streams violated for this endpoint."))
                == "PROTOCOL_ERROR: Maximum active streams violated for this endpoint."
        )
        #expect(HTTP2GoAwayReason.describe(errorCode: .noError, debugData: nil) == "NO_ERROR")
        #expect(HTTP2GoAwayReason.describe(errorCode: .enhanceYourCalm, debugData: ByteBuffer()) == "ENHANCE_YOUR_CALM")
        let long = String(repeating: "x", count: 10_000)
        #expect(HTTP2GoAwayReason.describe(errorCode: .noError, debugData: ByteBuffer(string: long)).count == 256)
    }
}
