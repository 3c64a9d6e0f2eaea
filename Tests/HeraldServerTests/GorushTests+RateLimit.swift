import HeraldSimulators
import HeraldTestSupport
import Testing

extension GorushTests {
    @Test func pushesOverThePublishLimitAreRefusedWith429() async throws {
        try await withGorush(extra: "server:\n  rate_limit:\n    publish: {rate: 0.001, burst: 1}\n") { herald, apns, _ throws in
            let body = #"{"notifications":[{"tokens":["\#(APNsTestBed.token(1))"],"platform":1,"message":"hi"}]}"#
            #expect(try await herald.request(.POST, "/api/push", json: body).status == 200)
            let refused = try await herald.request(.POST, "/api/push", json: body)
            #expect(refused.status == 429)
            #expect(refused.body == #"{"error":"Too many requests"}"#)
            #expect(refused.header("Retry-After") != nil)
            try await eventually { apns.simulator.requestCount == 1 }
        }
    }
}
