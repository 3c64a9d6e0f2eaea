import Synchronization

/// The simulator's configuration and locked state, shared by the routes; every critical section is a few
/// dictionary operations.
final class WNSSimulatorStore: Sendable {
    let configuration: WNSSimulator.Configuration
    let state: Mutex<WNSSimulatorState>

    init(configuration: WNSSimulator.Configuration) {
        self.configuration = configuration
        self.state = Mutex(WNSSimulatorState(seed: configuration.seed))
    }

    /// 16 hexadecimal digits from the seeded generator (`X-WNS-Msg-ID`, channel ids).
    func randomHex(_ state: inout WNSSimulatorState) -> String {
        let value = state.faults.nextRandom()
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
