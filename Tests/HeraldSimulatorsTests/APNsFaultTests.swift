import AsyncHTTPClient
import HeraldSimulators
import Testing

/// Fault injection: rates from a seeded generator and scripted one-shot actions.
@Suite(.timeLimit(.minutes(1)))
struct APNsFaultTests {
    @Test func allServiceUnavailable() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.setFaults(.init(serviceUnavailableRate: 1))
            let apnsID = "0c9d8e7f-1234-4abc-8def-0123456789ab"
            let reply = try await fixture.push(headers: fixture.standardHeaders + [("apns-id", apnsID)])
            #expect(reply.status == 503)
            #expect(reply.reason == "ServiceUnavailable")
            #expect(reply.apnsID == apnsID)
            #expect(fixture.simulator.acceptedCount == 0)
            fixture.simulator.setFaults(.none)
            #expect(try await fixture.push().status == 200)
        }
    }

    @Test func tooManyRequestsCarriesRetryAfter() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.setFaults(.init(tooManyRequestsRate: 1, tooManyRequestsRetryAfter: 7))
            let reply = try await fixture.push()
            #expect(reply.status == 429)
            #expect(reply.reason == "TooManyRequests")
            #expect(reply.headers.first(name: "retry-after") == "7")
        }
    }

    @Test func scriptedRequestNumber() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.inject(.internalServerError, atRequest: 2)
            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(try await fixture.push().status)
            }
            #expect(statuses == [200, 500, 200])
            #expect(fixture.simulator.requestCount == 3)
        }
    }

    @Test func queuedInjections() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.injectNext([.tooManyRequests(), .shutdown, .delay(milliseconds: 20)])
            let first = try await fixture.push()
            let second = try await fixture.push()
            let third = try await fixture.push()
            #expect(first.status == 429)
            #expect(second.status == 503)
            #expect(second.reason == "Shutdown")
            #expect(third.status == 200)
            #expect(fixture.simulator.statistics().rejections == ["TooManyRequests": 1, "Shutdown": 1])
        }
    }

    private func statuses(seed: UInt64) async throws -> [Int] {
        var statuses: [Int] = []
        try await APNsFixture.with(configure: { $0.seed = seed }) { fixture in
            fixture.simulator.setFaults(.init(internalServerErrorRate: 0.5))
            for _ in 0..<24 {
                statuses.append(try await fixture.push().status)
            }
        }
        return statuses
    }

    @Test func faultPlansReplayFromTheSeed() async throws {
        let first = try await self.statuses(seed: 42)
        let second = try await self.statuses(seed: 42)
        #expect(first == second)
        #expect(Set(first) == [200, 500])
    }

    @Test func hangNeverAnswers() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.injectNext([.hang])
            let request = Task { try await fixture.push() }
            while fixture.simulator.requestCount == 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
            // An answer would have been written when the request arrived; ending the connection now shows there was
            // none: the request fails instead of completing.
            fixture.simulator.resetConnections()
            await #expect(throws: (any Error).self) {
                _ = try await request.value
            }
        }
    }

    @Test func resetConnectionFailsTheRequestAndTheNextOneReconnects() async throws {
        try await APNsFixture.with { fixture in
            let before = try await fixture.push()
            #expect(before.status == 200)
            fixture.simulator.injectNext([.resetConnection])
            await #expect(throws: (any Error).self) {
                _ = try await fixture.push()
            }
            // The client may learn of the reset only when it next uses the pooled connection.
            var after: APNsFixture.Reply?
            for _ in 0..<3 where after == nil {
                after = try? await fixture.push()
            }
            #expect(after?.status == 200)
            #expect(fixture.simulator.statistics().connections == 2)
        }
    }

    @Test func resetConnectionsDropsEveryConnection() async throws {
        try await APNsFixture.with { fixture in
            let connection = try await RawHTTP2Connection.connect(port: fixture.port, authority: fixture.authority)
            _ = await connection.frames { $0.type == RawFrame.settings && !$0.isSettingsAck }
            fixture.simulator.resetConnections()
            // The stream of frames ends: the connection is gone, with no GOAWAY before it.
            let rest = await connection.frames { $0.type == RawFrame.goAway }
            #expect(rest == nil)
            await connection.close()
        }
    }
}
