@testable import HeraldServer
import Synchronization
import Testing

/// `GET /status`'s cached ping: shared by concurrent requests, never older than its bound.
@Suite("Store health")
struct StatusProbeTests {
    /// Counts probes and fails while told to.
    final class Probe: Sendable {
        private let state = Mutex<(calls: Int, failing: Bool)>((0, false))

        var calls: Int { state.withLock { $0.calls } }

        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

        func run() throws {
            let failing = state.withLock { state -> Bool in
                state.calls += 1
                return state.failing
            }
            if failing { throw Failure() }
        }

        struct Failure: Error {}
    }

    @Test("concurrent requests within the bound share one ping")
    func concurrentRequestsShareOnePing() async {
        let probe = Probe()
        let health = StatusProbe(maxAge: .seconds(3600)) { try probe.run() }

        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { await health.isHealthy() } }
            var answers: [Bool] = []
            for await answer in group { answers.append(answer) }
            return answers
        }

        #expect(answers == Array(repeating: true, count: 100))
        #expect(probe.calls == 1)
    }

    @Test("a failing ping answers unhealthy, and a result past its bound is pinged again")
    func failureAndRecovery() async {
        let probe = Probe()
        // A bound of zero: every call pings, so the answers follow the store.
        let health = StatusProbe(maxAge: .zero) { try probe.run() }

        probe.fail(true)
        #expect(await health.isHealthy() == false)
        probe.fail(false)
        #expect(await health.isHealthy() == true)
        #expect(probe.calls == 2)
    }

    @Test("a ping that does not return within the timeout answers unhealthy")
    func hangingPing() async {
        let health = StatusProbe(maxAge: .zero, timeout: .milliseconds(50)) {
            try await Task.sleep(for: .seconds(3600))
        }
        #expect(await health.isHealthy() == false)
    }
}
