import AsyncHTTPClient
import Foundation
import HeraldSimulators
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
