/// Decides what each arriving request of a simulator gets: the injection scripted for its number, else the next
/// queued one, else a draw from the random fault plan.
///
/// A value type kept inside the state a simulator's mutex already guards, because the seeded generator it owns also
/// makes the simulator's ids (message ids, access tokens, channel ids): deciding and numbering under one lock keeps
/// a seeded run replaying identically.
///
/// Injections come back as they were scripted, a delay included; what each one means is the simulator's business.
struct FaultSchedule<Plan: SimulatorFaultPlan>: Sendable {
    /// The random fault plan, drawn from when nothing is scripted or queued for a request.
    var plan: Plan = .none
    /// Requests decided so far; the next one is number `arrivals + 1`.
    private(set) var arrivals = 0
    /// Request number (1-based) → what that request gets.
    private var scripted: [Int: Plan.Injection] = [:]
    /// What the next requests get, in order, when they have no entry in `scripted`.
    private var queued: [Plan.Injection] = []
    private var generator: SeededRandomNumberGenerator

    /// Creates a schedule with nothing scripted, no random faults, and a generator seeded with `seed`.
    init(seed: UInt64) {
        self.generator = SeededRandomNumberGenerator(seed: seed)
    }

    /// Makes request number `number` (1-based, counting every arrival) get `injection`, replacing whatever was
    /// scripted for it.
    mutating func inject(_ injection: Plan.Injection, atRequest number: Int) {
        self.scripted[number] = injection
    }

    /// Makes the next requests without a scripted injection get `injections`, one each, in order.
    mutating func injectNext(_ injections: [Plan.Injection]) {
        self.queued.append(contentsOf: injections)
    }

    /// Counts an arriving request and decides what it gets.
    ///
    /// A scripted or queued injection comes with no drawn delay; only the random plan draws one.
    mutating func arrive() -> (injection: Plan.Injection?, delayMilliseconds: Int) {
        self.arrivals += 1
        if let scripted = self.scripted.removeValue(forKey: self.arrivals) {
            return (scripted, 0)
        }
        if !self.queued.isEmpty {
            return (self.queued.removeFirst(), 0)
        }
        if self.plan.isEmpty {
            return (nil, 0)
        }
        return self.plan.draw(using: &self.generator)
    }

    /// The next 64 bits of the seeded generator, for the simulator's ids, which share it with the fault draws.
    mutating func nextRandom() -> UInt64 {
        self.generator.next()
    }
}
