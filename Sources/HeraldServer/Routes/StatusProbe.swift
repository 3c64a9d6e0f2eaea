import Synchronization

/// The store's health as `GET /status` answers it: a `ping` at most once per `maxAge`, shared by
/// every request that arrives meanwhile.
///
/// Load balancers and benchmarks poll `/status` thousands of times a second; a database round
/// trip (and a two-second timer task) per call made it cost several times a static route. Every
/// answer is still the result of a ping that finished less than `maxAge` ago, or of one the
/// request waited for: a request never gets an answer older than that, however rarely it polls,
/// so a database that goes away shows as 503 within `maxAge` plus the ping's `timeout`.
final class StatusProbe: Sendable {
    /// The last ping's result and the one in flight.
    private struct State {
        /// `nil` until the first ping has finished.
        var healthy: Bool?
        var checkedAt: ContinuousClock.Instant
        var inFlight: Task<Bool, Never>?
    }

    private let probe: @Sendable () async throws -> Void
    private let maxAge: Duration
    private let timeout: Duration
    private let state: Mutex<State>

    /// Runs `probe` (the store's `ping`) when its last result is older than `maxAge`; a probe
    /// that throws, or does not return within `timeout`, counts as unhealthy.
    init(maxAge: Duration = .seconds(1), timeout: Duration = .seconds(2), probe: @escaping @Sendable () async throws -> Void) {
        self.probe = probe
        self.maxAge = maxAge
        self.timeout = timeout
        self.state = Mutex(State(healthy: nil, checkedAt: .now, inFlight: nil))
    }

    /// Whether the store answered its last ping, pinging first if that result is stale.
    func isHealthy() async -> Bool {
        let now = ContinuousClock.now
        let (fresh, ping) = state.withLock { state -> (Bool?, Task<Bool, Never>?) in
            if let healthy = state.healthy, now - state.checkedAt < maxAge { return (healthy, nil) }
            if let inFlight = state.inFlight { return (nil, inFlight) }
            // Unstructured so that a client hanging up does not cancel the ping others wait for.
            let task = Task { await self.ping() }
            state.inFlight = task
            return (nil, task)
        }
        if let fresh { return fresh }
        return await ping!.value
    }

    /// One ping against the timeout; records its result.
    private func ping() async -> Bool {
        let probe = self.probe
        let timeout = self.timeout
        let healthy = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await probe()) != nil }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        state.withLock { state in
            state.healthy = healthy
            state.checkedAt = .now
            state.inFlight = nil
        }
        return healthy
    }
}
