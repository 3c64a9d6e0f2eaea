extension APNsSimulator {
    /// Random trouble injected into a share of requests, drawn from the simulator's seeded generator.
    ///
    /// Faults strike when a request arrives, before it is validated, as a failing server would. The rates of the
    /// answering faults (500, 503, 429, hang) add up and must not exceed 1; the delay is drawn independently.
    public struct Faults: Sendable, Hashable {
        /// Share of requests answered `500 InternalServerError`.
        public var internalServerErrorRate: Double
        /// Share of requests answered `503 ServiceUnavailable`.
        public var serviceUnavailableRate: Double
        /// Share of requests answered `429 TooManyRequests`.
        public var tooManyRequestsRate: Double
        /// The `retry-after` header (seconds) sent with injected `429`s, if any.
        public var tooManyRequestsRetryAfter: Int?
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
            internalServerErrorRate: Double = 0,
            serviceUnavailableRate: Double = 0,
            tooManyRequestsRate: Double = 0,
            tooManyRequestsRetryAfter: Int? = nil,
            hangRate: Double = 0,
            delayRate: Double = 0,
            delayMilliseconds: ClosedRange<Int> = 0...0
        ) {
            self.internalServerErrorRate = internalServerErrorRate
            self.serviceUnavailableRate = serviceUnavailableRate
            self.tooManyRequestsRate = tooManyRequestsRate
            self.tooManyRequestsRetryAfter = tooManyRequestsRetryAfter
            self.hangRate = hangRate
            self.delayRate = delayRate
            self.delayMilliseconds = delayMilliseconds
        }

        /// Whether any fault can strike; lets the hot path skip the random draws.
        var isEmpty: Bool {
            self.internalServerErrorRate <= 0 && self.serviceUnavailableRate <= 0 && self.tooManyRequestsRate <= 0
                && self.hangRate <= 0 && (self.delayRate <= 0 || self.delayMilliseconds.upperBound <= 0)
        }

        /// Picks this request's fault with `generator`: at most one answering fault, plus an optional delay.
        func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: Injection?, delayMilliseconds: Int)
        {
            var delay = 0
            if self.delayRate > 0, generator.nextUnitInterval() < self.delayRate {
                delay = Int.random(in: self.delayMilliseconds, using: &generator)
            }
            let draw = generator.nextUnitInterval()
            var threshold = self.internalServerErrorRate
            if draw < threshold { return (.internalServerError, delay) }
            threshold += self.serviceUnavailableRate
            if draw < threshold { return (.serviceUnavailable, delay) }
            threshold += self.tooManyRequestsRate
            if draw < threshold { return (.tooManyRequests(retryAfter: self.tooManyRequestsRetryAfter), delay) }
            threshold += self.hangRate
            if draw < threshold { return (.hang, delay) }
            return (nil, delay)
        }
    }
}

// A `FaultSchedule` draws from the plan when nothing is scripted or queued.
extension APNsSimulator.Faults: SimulatorFaultPlan {}
