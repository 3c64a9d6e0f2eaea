import Synchronization

/// The simulator's shared state behind one mutex, and its recorder behind another; every critical section is a few
/// dictionary operations, so each lock is held for well under a microsecond even on the benchmark's hot path.
final class APNsSimulatorStore: Sendable {
    let state: Mutex<APNsSimulatorState>
    /// The counters (the connection counters among them stay 0 here, as ``SimulatorConnectionRegistry`` keeps
    /// them) and the accepted tokens and payloads.
    let recorder: SimulatorRecorder<APNsSimulator.Statistics, APNsSimulator.Accepted>

    init(seed: UInt64, recordTokens: Bool) {
        self.state = Mutex(APNsSimulatorState(seed: seed))
        self.recorder = SimulatorRecorder(recordTokens: recordTokens)
    }

    /// Counts a request and decides what it gets: a scripted or queued injection first, else the fault plan.
    func arrive() -> (injection: APNsSimulator.Injection?, delayMilliseconds: Int) {
        self.recorder.countRequest()
        return self.state.withLock { $0.faults.arrive() }
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
}
