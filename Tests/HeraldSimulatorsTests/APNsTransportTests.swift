import HeraldSimulators
import Testing

/// Transport variants: cleartext HTTP/2 for benchmarks, and client certificates from a foreign CA.
@Suite(.timeLimit(.minutes(1)))
struct APNsTransportTests {
    @Test func cleartextHTTP2WithPriorKnowledge() async throws {
        try await APNsFixture.with(configure: {
            $0.certificateAuthority = nil
            $0.sandbox = true
        }) { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: nil)
            let path = "/3/device/\(APNsFixture.deviceToken)"
            try await connection.sendHeaders(
                streamID: 1, path: path, headers: fixture.standardHeaders, endStream: false)
            try await connection.sendData(streamID: 1, body: APNsFixture.alertBody, endStream: true)
            let response = try #require(await connection.frames { $0.type == RawFrame.headers && $0.streamID == 1 })
            // A 200 is a lone HEADERS frame with END_STREAM: no body.
            #expect(response.match.flags & 0x1 == 0x1)
            #expect(fixture.simulator.acceptedTokens() == [APNsFixture.deviceToken])
            await connection.close()
        }
    }

    @Test func certificateFromAnotherAuthorityIsRefused() async throws {
        try await APNsFixture.with(configure: { $0.clientCertificateAuthentication = true }) { fixture in
            let stranger = try SimulatorCertificateAuthority(commonName: "Someone Else")
            let certificate = try stranger.issueClientCertificate(topic: APNsFixture.bundleID)
            let connection = try await RawHTTP2Connection.connect(
                port: fixture.port,
                authority: fixture.authority,
                clientCertificate: certificate
            )
            // The handshake fails, so not a single HTTP/2 frame arrives before the connection ends.
            #expect(await connection.drainUntilClosed() == 0)
            #expect(fixture.simulator.requestCount == 0)
            await connection.close()
        }
    }
}
