/// The fault-injection controls of the HTTP/1.1 simulators (WNS, MPNS, legacy GCM), written once
/// over the fault plan each keeps in its locked state.
public protocol HTTP1FaultInjecting: Sendable {
    /// Runs `body` on the simulator's fault plan under its state lock; the controls below use it.
    func withFaultPlan<Result>(_ body: (inout HTTP1FaultPlan) -> Result) -> Result
}

extension HTTP1FaultInjecting {
    /// The current random fault plan of the requests faults apply to.
    public var faults: HTTP1SimulatorFaults {
        withFaultPlan { $0.schedule.plan }
    }

    /// Replaces the random fault plan; takes effect for the next request.
    public func setFaults(_ faults: HTTP1SimulatorFaults) {
        withFaultPlan { $0.schedule.plan = faults }
    }

    /// Makes request number `number` (1-based, counted as the simulator's statistics count the
    /// requests faults apply to) get `injection`.
    public func inject(_ injection: HTTP1SimulatorInjection, atRequest number: Int) {
        withFaultPlan { $0.schedule.inject(injection, atRequest: number) }
    }

    /// Makes the next requests get `injections`, one each, in order (before the random fault plan).
    public func injectNext(_ injections: [HTTP1SimulatorInjection]) {
        withFaultPlan { $0.schedule.injectNext(injections) }
    }
}
