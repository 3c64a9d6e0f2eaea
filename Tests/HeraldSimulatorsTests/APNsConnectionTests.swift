import AsyncHTTPClient
import Foundation
import HeraldSimulators
import NIOCore
import Testing

/// SETTINGS_MAX_CONCURRENT_STREAMS and GOAWAY (§1.5, §1.7), observed frame by frame with a raw HTTP/2 client.
@Suite(.timeLimit(.minutes(1)))
struct APNsConnectionTests {
    private func requestHeaders(_ fixture: APNsFixture) -> [(String, String)] {
        fixture.standardHeaders
    }

    private let path = "/3/device/\(APNsFixture.deviceToken)"

    @Test func streamLimitStartsAtOneAndRisesAfterTheFirstValidToken() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            let first = await connection.frames { $0.type == RawFrame.settings && !$0.isSettingsAck }
            #expect(first?.match.maxConcurrentStreams == 1)

            try await connection.sendHeaders(
                streamID: 1, path: self.path, headers: self.requestHeaders(fixture), endStream: false)
            try await connection.sendData(streamID: 1, body: APNsFixture.alertBody, endStream: true)
            let response = try #require(await connection.frames { $0.type == RawFrame.headers && $0.streamID == 1 })
            let raised = response.before.compactMap(\.maxConcurrentStreams)
            #expect(raised == [1000])
            #expect(fixture.simulator.statistics().maxConcurrentStreamsRaises == 1)
            await connection.close()
        }
    }

    @Test func aRejectedTokenDoesNotRaiseTheLimit() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            let headers = fixture.headers(setting: "authorization", to: "bearer not.a.jwt")
            try await connection.sendHeaders(streamID: 1, path: self.path, headers: headers, endStream: false)
            try await connection.sendData(streamID: 1, body: APNsFixture.alertBody, endStream: true)
            let response = try #require(await connection.frames { $0.type == RawFrame.data && $0.streamID == 1 })
            #expect(response.before.compactMap(\.maxConcurrentStreams) == [1])
            #expect(String(buffer: response.match.payload) == #"{"reason":"InvalidProviderToken"}"#)
            #expect(fixture.simulator.statistics().maxConcurrentStreamsRaises == 0)
            await connection.close()
        }
    }

    @Test func certificateConnectionsStartAtTheAuthenticatedLimit() async throws {
        try await APNsFixture.with(configure: {
            $0.clientCertificateAuthentication = true
            $0.authenticatedMaxConcurrentStreams = 1500
        }) { fixture in
            let certificate = try fixture.authority.issueClientCertificate(topic: APNsFixture.bundleID)
            let connection = try await RawHTTP2Connection.connect(
                port: fixture.port,
                authority: fixture.authority,
                clientCertificate: certificate
            )
            let first = await connection.frames { $0.type == RawFrame.settings && !$0.isSettingsAck }
            #expect(first?.match.maxConcurrentStreams == 1500)
            await connection.close()
        }
    }

    @Test func exceedingTheLimitEndsTheConnectionWithGoAway() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            _ = await connection.frames { $0.type == RawFrame.settings && !$0.isSettingsAck }
            // Two open streams while one is allowed.
            try await connection.sendHeaders(
                streamID: 1, path: self.path, headers: self.requestHeaders(fixture), endStream: false)
            try await connection.sendHeaders(
                streamID: 3, path: self.path, headers: self.requestHeaders(fixture), endStream: false)
            let goAway = try #require(await connection.frames { $0.type == RawFrame.goAway }?.match.goAway)
            #expect(goAway.errorCode == 0x1)  // PROTOCOL_ERROR
            #expect(goAway.lastStreamID == 1)
            #expect(goAway.debugText == "Maximum active streams violated for this endpoint.")
            _ = await connection.drainUntilClosed()
            #expect(fixture.simulator.statistics().maxConcurrentStreamsViolations == 1)
            #expect(fixture.simulator.acceptedCount == 0)
            await connection.close()
        }
    }

    /// Opens a connection that acknowledges only the server's first SETTINGS frame, sends one valid request and
    /// waits for its answer, before which the simulator sent the SETTINGS frame raising the limit.
    private func connectionWithUnacknowledgedRaise(_ fixture: APNsFixture) async throws -> RawHTTP2Connection {
        let connection = try await RawHTTP2Connection.connect(
            port: fixture.port, authority: fixture.authority, acknowledgingSettings: 1)
        try await connection.sendHeaders(
            streamID: 1, path: self.path, headers: self.requestHeaders(fixture), endStream: false)
        try await connection.sendData(streamID: 1, body: APNsFixture.alertBody, endStream: true)
        let response = try #require(await connection.frames { $0.type == RawFrame.headers && $0.streamID == 1 })
        #expect(response.before.compactMap(\.maxConcurrentStreams) == [1, 1000])
        return connection
    }

    /// Like nghttp2's and Python h2's servers, the simulator holds a client to the limit it last acknowledged
    /// (RFC 9113 §6.5.3): streams opened before the ACK of a raise, even in the same read, still count against 1.
    @Test func aRaiseAppliesOnlyOnceTheClientAcknowledgesIt() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await self.connectionWithUnacknowledgedRaise(fixture)
            try await connection.send([
                try connection.headersFrame(
                    streamID: 3, path: self.path, headers: self.requestHeaders(fixture), endStream: false),
                try connection.headersFrame(
                    streamID: 5, path: self.path, headers: self.requestHeaders(fixture), endStream: false),
                RawHTTP2Connection.settingsAckFrame(),
            ])
            // The simulator may already have answered the violation with GOAWAY and closed the
            // connection, so these writes can fail; what it answered is the test.
            try? await connection.sendData(streamID: 3, body: APNsFixture.alertBody, endStream: true)
            try? await connection.sendData(streamID: 5, body: APNsFixture.alertBody, endStream: true)
            let outcome = try #require(
                await connection.frames {
                    $0.type == RawFrame.goAway || ($0.type == RawFrame.headers && $0.streamID == 5)
                }?.match)
            let goAway = try #require(outcome.goAway, "stream 5 was served over the acknowledged limit of 1")
            #expect(goAway.errorCode == 0x1)  // PROTOCOL_ERROR
            #expect(goAway.lastStreamID == 3)
            #expect(goAway.debugText == "Maximum active streams violated for this endpoint.")
            _ = await connection.drainUntilClosed()
            #expect(fixture.simulator.statistics().maxConcurrentStreamsViolations == 1)
            await connection.close()
        }
    }

    /// With `splitAcknowledgement`, the ACK's frame header straddles two reads of the simulator.
    @Test(arguments: [false, true])
    func streamsAfterTheAcknowledgementOfARaiseMayUseIt(splitAcknowledgement: Bool) async throws {
        try await APNsFixture.with { fixture in
            let connection = try await self.connectionWithUnacknowledgedRaise(fixture)
            var acknowledgement = RawHTTP2Connection.settingsAckFrame()
            if splitAcknowledgement {
                try await connection.send([acknowledgement.readSlice(length: 4)!])
                // Only makes a separate read likely; the outcome must be the same either way.
                try await Task.sleep(for: .milliseconds(50))
            }
            try await connection.send([
                acknowledgement,
                try connection.headersFrame(
                    streamID: 3, path: self.path, headers: self.requestHeaders(fixture), endStream: false),
                try connection.headersFrame(
                    streamID: 5, path: self.path, headers: self.requestHeaders(fixture), endStream: false),
            ])
            try await connection.sendData(streamID: 3, body: APNsFixture.alertBody, endStream: true)
            try await connection.sendData(streamID: 5, body: APNsFixture.alertBody, endStream: true)
            var answered: Set<UInt32> = []
            while answered.count < 2 {
                let frame = try #require(
                    await connection.frames { $0.type == RawFrame.goAway || $0.type == RawFrame.headers }?.match)
                try #require(frame.type == RawFrame.headers, "GOAWAY \(String(describing: frame.goAway))")
                answered.insert(frame.streamID)
            }
            #expect(answered == [3, 5])
            let statistics = fixture.simulator.statistics()
            #expect(statistics.maxConcurrentStreamsViolations == 0)
            #expect(statistics.maxConcurrentStreamsObserved == 2)
            await connection.close()
        }
    }

    @Test func aProtocolErrorEndsTheConnectionAndIsCounted() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            _ = await connection.frames { $0.type == RawFrame.settings && !$0.isSettingsAck }
            // DATA on stream 0 is a connection error (RFC 9113 §6.1), which nio-http2 answers by itself.
            try await connection.send([
                RawHTTP2Connection.frame(type: RawFrame.data, flags: 0, streamID: 0, payload: ByteBuffer(string: "x"))
            ])
            let goAway = try #require(await connection.frames { $0.type == RawFrame.goAway }?.match.goAway)
            #expect(goAway.errorCode == 0x1)  // PROTOCOL_ERROR
            _ = await connection.drainUntilClosed()
            let statistics = fixture.simulator.statistics()
            #expect(statistics.protocolErrors == 1)
            #expect(statistics.maxConcurrentStreamsViolations == 0)
            await connection.close()
        }
    }

    @Test func sendGoAwayTellsEveryConnectionAndClosesIt() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            try await connection.sendHeaders(
                streamID: 1, path: self.path, headers: self.requestHeaders(fixture), endStream: false)
            try await connection.sendData(streamID: 1, body: APNsFixture.alertBody, endStream: true)
            _ = await connection.frames { $0.type == RawFrame.headers && $0.streamID == 1 }

            fixture.simulator.sendGoAway()
            let goAway = try #require(await connection.frames { $0.type == RawFrame.goAway }?.match.goAway)
            #expect(goAway.errorCode == 0)
            #expect(goAway.lastStreamID == 1)
            #expect(goAway.debugText == #"{"reason":"Shutdown"}"#)
            _ = await connection.drainUntilClosed()
            #expect(fixture.simulator.statistics().goAwaysSent == 1)
            await connection.close()
        }
    }

    @Test func injectedGoAwayExcludesTheRequestThatTriggeredIt() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.injectNext([.goAway(reason: "IdleTimeout")])
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            try await connection.sendHeaders(
                streamID: 1, path: self.path, headers: self.requestHeaders(fixture), endStream: false)
            try await connection.sendData(streamID: 1, body: APNsFixture.alertBody, endStream: true)
            let goAway = try #require(await connection.frames { $0.type == RawFrame.goAway }?.match.goAway)
            #expect(goAway.lastStreamID == 0)
            #expect(goAway.debugText == #"{"reason":"IdleTimeout"}"#)
            _ = await connection.drainUntilClosed()
            await connection.close()
        }
    }

    @Test func clientsThatObeyTheLimitAreServedConcurrently() async throws {
        try await APNsFixture.with { fixture in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await fixture.push(token: String(format: "%064x", index)).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            let statistics = fixture.simulator.statistics()
            #expect(statistics.maxConcurrentStreamsViolations == 0)
            #expect(statistics.protocolErrors == 0)
            #expect(statistics.maxConcurrentStreamsRaises >= 1)
            #expect(Set(fixture.simulator.acceptedTokens()).count == 20)
        }
    }

    @Test func afterGoAwayTheClientReconnects() async throws {
        try await APNsFixture.with { fixture in
            #expect(try await fixture.push().status == 200)
            fixture.simulator.sendGoAway()
            while fixture.simulator.openConnectionCount > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await fixture.push().status == 200)
            #expect(fixture.simulator.statistics().connections == 2)
        }
    }
}
