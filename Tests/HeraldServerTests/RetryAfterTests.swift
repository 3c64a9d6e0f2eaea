import Foundation
import HeraldTestSupport
import HTTPTypes
import Synchronization
import Testing

/// A service's `Retry-After` is a floor under the backoff: no retry comes earlier.
@Suite struct RetryAfterTests {
    @Test func tooManyRequestsWithRetryAfterIsNotRetriedEarlier() async throws {
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let yaml = """
            delivery:
              retry_delay: 0.01
              max_retry_delay: 0.05
            """
        try await withHerald(yaml: yaml) { herald in
            let receiver = try await WebhookReceiver.start(responder: { _ in
                let count = arrivals.withLock { list in
                    list.append(.now)
                    return list.count
                }
                return count == 1 ? (.tooManyRequests, [.retryAfter: "2"]) : (.ok, [:])
            })
            do {
                try await check(herald, receiver, arrivals)
                await receiver.stop()
            } catch {
                await receiver.stop()
                throw error
            }
        }
    }

    private func check(_ herald: TestHerald, _ receiver: WebhookReceiver, _ arrivals: borrowing Mutex<[ContinuousClock.Instant]>) async throws {
        let id = try await Fixtures.register(herald, url: receiver.url("/limited"))
        #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
        #expect(try await herald.request(.POST, "/event/e", form: "msg=1").status == 204)
        _ = try await receiver.waitFor(count: 2)
        let times = arrivals.withLock { $0 }
        #expect(times.count == 2)
        // The configured backoff alone would retry after about 10 ms.
        #expect(times[1] - times[0] >= .seconds(2))
        try await eventually { try await herald.application.store.counts().retries == 0 }
        let statistics = try #require(try Fixtures.json(try await herald.request(.GET, "/event/e").body) as? [String: Any])
        #expect(statistics["delivered"] as? Int == 1)
    }
}
