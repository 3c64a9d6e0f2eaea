/// The scripted answers and random fault plan of one HTTP/1.1 simulator, kept inside its locked state. Its parts
/// are internal: tests and tools use ``HTTP1FaultInjecting``'s controls.
public struct HTTP1FaultPlan: Sendable {
    /// What each arriving request gets; its generator also makes the simulator's ids.
    var schedule: FaultSchedule<HTTP1SimulatorFaults>

    init(seed: UInt64) {
        self.schedule = FaultSchedule(seed: seed)
    }

    /// Counts a request and decides what it gets: a scripted or queued injection first, else the fault plan. A
    /// scripted delay comes back as a delay, not an injection, since the HTTP/1.1 simulators only wait for it.
    mutating func arrive() -> (injection: HTTP1SimulatorInjection?, delayMilliseconds: Int) {
        let (injection, delay) = schedule.arrive()
        if case .delay(let milliseconds)? = injection { return (nil, milliseconds) }
        return (injection, delay)
    }

    /// A random 64-bit value from the seeded generator, for message ids and tokens.
    mutating func nextRandom() -> UInt64 {
        schedule.nextRandom()
    }
}
