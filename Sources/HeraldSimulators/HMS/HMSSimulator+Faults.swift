extension HMSSimulator {
    /// Random trouble injected into a share of `messages:send` requests, drawn from the simulator's seeded generator.
    ///
    /// Faults strike when a request arrives, before it is authenticated or validated, as a failing front end would.
    /// The rates of the answering faults (`81000001`, flow control) add up and must not exceed 1; the delay is drawn
    /// independently.
    public struct Faults: Sendable, Hashable {
        /// Share of requests answered `500` with `81000001` (internal error).
        public var internalErrorRate: Double
        /// Share of requests answered `503` without a code (flow control).
        public var flowControlRate: Double
        /// The `Retry-After` header (seconds) sent with injected `503`s, if any.
        public var retryAfter: Int?
        /// Share of requests whose answer is delayed.
        public var delayRate: Double
        /// The delay, in milliseconds, drawn uniformly from this range for delayed requests.
        public var delayMilliseconds: ClosedRange<Int>

        /// No faults.
        public static let none = Faults()

        /// Creates a fault plan; every rate defaults to 0.
        public init(
            internalErrorRate: Double = 0,
            flowControlRate: Double = 0,
            retryAfter: Int? = nil,
            delayRate: Double = 0,
            delayMilliseconds: ClosedRange<Int> = 0...0
        ) {
            self.internalErrorRate = internalErrorRate
            self.flowControlRate = flowControlRate
            self.retryAfter = retryAfter
            self.delayRate = delayRate
            self.delayMilliseconds = delayMilliseconds
        }

        /// Whether any fault can strike; lets the hot path skip the random draws.
        var isEmpty: Bool {
            self.internalErrorRate <= 0 && self.flowControlRate <= 0
                && (self.delayRate <= 0 || self.delayMilliseconds.upperBound <= 0)
        }

        /// The sum of the answering faults' rates.
        var answeringRate: Double {
            self.internalErrorRate + self.flowControlRate
        }

        /// Picks this request's fault with `generator`: at most one answering fault, plus an optional delay.
        func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: Injection?, delayMilliseconds: Int) {
            var delay = 0
            if self.delayRate > 0, generator.nextUnitInterval() < self.delayRate {
                delay = Int.random(in: self.delayMilliseconds, using: &generator)
            }
            let draw = generator.nextUnitInterval()
            var threshold = self.internalErrorRate
            if draw < threshold { return (.internalError, delay) }
            threshold += self.flowControlRate
            if draw < threshold { return (.flowControl(retryAfter: self.retryAfter), delay) }
            return (nil, delay)
        }
    }
}

// A `FaultSchedule` draws from the plan when nothing is scripted or queued.
extension HMSSimulator.Faults: SimulatorFaultPlan {}
