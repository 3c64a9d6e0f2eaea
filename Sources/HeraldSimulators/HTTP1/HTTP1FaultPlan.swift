/// The request counter, scripted answers and random fault plan of one simulator, kept inside its
/// locked state. Its parts are internal: tests and tools use ``HTTP1FaultInjecting``'s controls.
public struct HTTP1FaultPlan: Sendable {
    /// Requests received so far, whatever their outcome.
    private(set) var requests = 0
    var faults = HTTP1SimulatorFaults.none
    /// Request number (1-based) → what that request gets.
    var scripted: [Int: HTTP1SimulatorInjection] = [:]
    /// What the next requests get, in order, when they have no entry in `scripted`.
    var queued: [HTTP1SimulatorInjection] = []
    private var generator: SeededRandomNumberGenerator

    init(seed: UInt64) {
        self.generator = SeededRandomNumberGenerator(seed: seed)
    }

    /// Counts a request and decides what it gets: a scripted or queued injection first, else the fault plan.
    mutating func arrive() -> (injection: HTTP1SimulatorInjection?, delayMilliseconds: Int) {
        requests += 1
        if let scripted = scripted.removeValue(forKey: requests) { return unpack(scripted) }
        if !queued.isEmpty { return unpack(queued.removeFirst()) }
        if faults.isEmpty { return (nil, 0) }
        return faults.draw(using: &generator)
    }

    /// A random 64-bit value from the seeded generator, for message ids and tokens.
    mutating func nextRandom() -> UInt64 {
        generator.next()
    }

    private func unpack(_ injection: HTTP1SimulatorInjection) -> (injection: HTTP1SimulatorInjection?, delayMilliseconds: Int) {
        if case .delay(let milliseconds) = injection { return (nil, milliseconds) }
        return (injection, 0)
    }
}
