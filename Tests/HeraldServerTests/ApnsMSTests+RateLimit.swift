import HeraldSimulators
import HeraldTestSupport
import Testing

extension ApnsMSTests {
    @Test func notificationsOverThePublishLimitGetApnsMSsOverloadAnswer() async throws {
        try await withApnsMS(extra: "server:\n  rate_limit:\n    publish: {rate: 0.001, burst: 1}\n") { herald, bed, port throws in
            #expect(try await notify(port, Self.notification()).status == 202)
            let refused = try await notify(port, Self.notification(identifier: "0507e79c"))
            #expect(refused.status == 503)
            #expect(refused.body == #"{"error":"apns: Queue is full, dismissing command"}"#)
            #expect(refused.header("Content-Type") == "application/json; charset=utf8")
            #expect(refused.header("Retry-After").flatMap(Int.init).map { $0 >= 1 } == true)
            #expect(bed.simulator.requestCount == 1, "the refused notification was not sent")
            #expect(try await herald.request(.GET, "/metrics").body.contains(#"herald_rate_limited_total{realm="publish"} 1"#))
        }
    }
}
