/// Random trouble injected into a share of the requests of the WNS, MPNS and legacy GCM simulators, drawn from the
/// simulator's seeded generator so that a run replays identically.
///
/// Faults strike when a request arrives, before it is validated, as a failing server would. The rates of the
/// answering faults (500, 503, throttling) add up and must not exceed 1; the delay is drawn independently.
public struct HTTP1SimulatorFaults: Sendable, Hashable {
    /// Share of requests answered `500`.
    public var internalServerErrorRate: Double
    /// Share of requests answered `503`.
    public var serviceUnavailableRate: Double
    /// Share of requests answered with the service's throttling answer (WNS and MPNS `406`, GCM `429`).
    public var throttleRate: Double
    /// The `Retry-After` (seconds) sent with injected `503`s and throttling answers, if any.
    public var retryAfter: Int?
    /// Share of requests whose answer is delayed.
    public var delayRate: Double
    /// The delay, in milliseconds, drawn uniformly from this range for delayed requests.
    public var delayMilliseconds: ClosedRange<Int>

    /// No faults.
    public static let none = HTTP1SimulatorFaults()

    /// Creates a fault plan; every rate defaults to 0.
    public init(
        internalServerErrorRate: Double = 0,
        serviceUnavailableRate: Double = 0,
        throttleRate: Double = 0,
        retryAfter: Int? = nil,
        delayRate: Double = 0,
        delayMilliseconds: ClosedRange<Int> = 0...0
    ) {
        precondition(
            internalServerErrorRate + serviceUnavailableRate + throttleRate <= 1.000_001, "fault rates must add up to at most 1")
        self.internalServerErrorRate = internalServerErrorRate
        self.serviceUnavailableRate = serviceUnavailableRate
        self.throttleRate = throttleRate
        self.retryAfter = retryAfter
        self.delayRate = delayRate
        self.delayMilliseconds = delayMilliseconds
    }

    /// Whether any fault can strike; lets the hot path skip the random draws.
    var isEmpty: Bool {
        internalServerErrorRate <= 0 && serviceUnavailableRate <= 0 && throttleRate <= 0
            && (delayRate <= 0 || delayMilliseconds.upperBound <= 0)
    }

    /// Picks this request's fault with `generator`: at most one answering fault, plus an optional delay.
    func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: HTTP1SimulatorInjection?, delayMilliseconds: Int) {
        var delay = 0
        if delayRate > 0, generator.nextUnitInterval() < delayRate {
            delay = Int.random(in: delayMilliseconds, using: &generator)
        }
        let draw = generator.nextUnitInterval()
        var threshold = internalServerErrorRate
        if draw < threshold { return (.status(500), delay) }
        threshold += serviceUnavailableRate
        if draw < threshold { return (.status(503, retryAfter: retryAfter), delay) }
        threshold += throttleRate
        if draw < threshold { return (.throttle(retryAfter: retryAfter), delay) }
        return (nil, delay)
    }
}

// A `FaultSchedule` draws from the plan when nothing is scripted or queued.
extension HTTP1SimulatorFaults: SimulatorFaultPlan {}
