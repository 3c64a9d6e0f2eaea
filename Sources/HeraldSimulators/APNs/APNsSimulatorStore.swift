import Synchronization

/// The simulator's shared state behind one mutex; every critical section is a few dictionary operations, so the
/// lock is held for well under a microsecond even on the benchmark's hot path.
final class APNsSimulatorStore: Sendable {
    let state: Mutex<APNsSimulatorState>
    private let recordTokens: Bool

    init(seed: UInt64, recordTokens: Bool) {
        self.state = Mutex(APNsSimulatorState(seed: seed))
        self.recordTokens = recordTokens
    }

    /// Counts a request and decides what it gets: a scripted or queued injection first, else the fault plan.
    func arrive() -> (injection: APNsSimulator.Injection?, delayMilliseconds: Int) {
        self.state.withLock { state in
            state.statistics.requests += 1
            if let scripted = state.scripted.removeValue(forKey: state.statistics.requests) {
                return (scripted, 0)
            }
            if !state.queued.isEmpty {
                return (state.queued.removeFirst(), 0)
            }
            if state.faults.isEmpty {
                return (nil, 0)
            }
            return state.faults.draw(using: &state.generator)
        }
    }

    /// What is known about `token` (already lowercased).
    func deviceStatus(of token: String) -> APNsDeviceStatus {
        self.state.withLock { state in
            if state.badTokens.contains(token) { return .bad }
            if let timestamp = state.unregistered[token] { return .unregistered(timestampMillis: timestamp) }
            return .active(topics: state.tokenTopics[token])
        }
    }

    /// Admits `token` as one of the team's provider tokens, or refuses it when it would be one distinct token too
    /// many within `window` seconds. Refused tokens are not remembered, so the tokens already in use keep working.
    func admitProviderToken(_ token: String, now: Double, limit: Int?, window: Double) -> Bool {
        guard let limit else { return true }
        return self.state.withLock { state in
            if state.providerTokens.last?.token == token || state.providerTokens.contains(where: { $0.token == token })
            {
                return true
            }
            state.providerTokens.removeAll { now - $0.firstSeen >= window }
            guard state.providerTokens.count < limit else { return false }
            state.providerTokens.append((token, now))
            return true
        }
    }

    /// Records an accepted request.
    func recordAccepted(token: String, record: APNsSimulator.Accepted?) {
        self.state.withLock { state in
            state.statistics.accepted += 1
            if self.recordTokens {
                state.acceptedTokens.append(token)
            }
            if let record {
                state.accepted.append(record)
            }
        }
    }

    /// Records an error answer.
    func recordRejection(reason: String) {
        self.state.withLock { state in
            state.statistics.rejections[reason, default: 0] += 1
        }
    }

    /// Applies `body` to the statistics.
    func updateStatistics(_ body: (inout APNsSimulator.Statistics) -> Void) {
        self.state.withLock { body(&$0.statistics) }
    }
}
