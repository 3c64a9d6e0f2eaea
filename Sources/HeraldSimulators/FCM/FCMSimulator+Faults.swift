extension FCMSimulator {
    /// Random trouble injected into a share of send requests, drawn from the simulator's seeded generator.
    ///
    /// Faults strike when a request arrives, before it is authenticated or validated, as a failing front end
    /// would. The rates of the answering faults (429, 500, 503, hang) add up and must not exceed 1; the delay is
    /// drawn independently.
    public struct Faults: Sendable, Hashable {
        /// Share of requests answered `429 RESOURCE_EXHAUSTED` / `QUOTA_EXCEEDED`.
        public var quotaExceededRate: Double
        /// Share of requests answered `500 INTERNAL`.
        public var internalErrorRate: Double
        /// Share of requests answered `503 UNAVAILABLE`.
        public var unavailableRate: Double
        /// The `Retry-After` header (seconds) sent with injected `429`s and `503`s, if any.
        public var retryAfter: Int?
        /// Share of requests that never get an answer (the stream stays open), to exercise client deadlines.
        public var hangRate: Double
        /// Share of requests whose answer is delayed.
        public var delayRate: Double
        /// The delay, in milliseconds, drawn uniformly from this range for delayed requests.
        public var delayMilliseconds: ClosedRange<Int>

        /// No faults.
        public static let none = Faults()

        /// Creates a fault plan; every rate defaults to 0.
        public init(
            quotaExceededRate: Double = 0,
            internalErrorRate: Double = 0,
            unavailableRate: Double = 0,
            retryAfter: Int? = nil,
            hangRate: Double = 0,
            delayRate: Double = 0,
            delayMilliseconds: ClosedRange<Int> = 0...0
        ) {
            self.quotaExceededRate = quotaExceededRate
            self.internalErrorRate = internalErrorRate
            self.unavailableRate = unavailableRate
            self.retryAfter = retryAfter
            self.hangRate = hangRate
            self.delayRate = delayRate
            self.delayMilliseconds = delayMilliseconds
        }

        /// Whether any fault can strike; lets the hot path skip the random draws.
        var isEmpty: Bool {
            self.quotaExceededRate <= 0 && self.internalErrorRate <= 0 && self.unavailableRate <= 0
                && self.hangRate <= 0 && (self.delayRate <= 0 || self.delayMilliseconds.upperBound <= 0)
        }

        /// The sum of the answering faults' rates.
        var answeringRate: Double {
            self.quotaExceededRate + self.internalErrorRate + self.unavailableRate + self.hangRate
        }

        /// Picks this request's fault with `generator`: at most one answering fault, plus an optional delay.
        func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: Injection?, delayMilliseconds: Int)
        {
            var delay = 0
            if self.delayRate > 0, generator.nextUnitInterval() < self.delayRate {
                delay = Int.random(in: self.delayMilliseconds, using: &generator)
            }
            let draw = generator.nextUnitInterval()
            var threshold = self.quotaExceededRate
            if draw < threshold { return (.quotaExceeded(retryAfter: self.retryAfter), delay) }
            threshold += self.internalErrorRate
            if draw < threshold { return (.internalError, delay) }
            threshold += self.unavailableRate
            if draw < threshold { return (.unavailable(retryAfter: self.retryAfter), delay) }
            threshold += self.hangRate
            if draw < threshold { return (.hang, delay) }
            return (nil, delay)
        }
    }
}

// A `FaultSchedule` draws from the plan when nothing is scripted or queued.
extension FCMSimulator.Faults: SimulatorFaultPlan {}
