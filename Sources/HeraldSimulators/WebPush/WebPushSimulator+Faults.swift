extension WebPushSimulator {
    /// Random trouble injected into a share of push requests, drawn from the simulator's seeded generator.
    ///
    /// Faults strike when a request arrives, before it is validated, as a failing service would. The rates of the
    /// answering faults add up and must not exceed 1; the delay is drawn independently and then the request is
    /// processed (or answered with its fault) as usual.
    public struct Faults: Sendable, Hashable {
        /// Share of requests answered `404` (subscription not found).
        public var notFoundRate: Double
        /// Share of requests answered `410` (subscription gone).
        public var goneRate: Double
        /// Share of requests answered `413`.
        public var payloadTooLargeRate: Double
        /// Share of requests answered `429`.
        public var tooManyRequestsRate: Double
        /// The `Retry-After` (seconds) sent with injected `429`s, if any.
        public var tooManyRequestsRetryAfter: Int?
        /// Share of requests answered `500`.
        public var internalServerErrorRate: Double
        /// Share of requests answered `503`.
        public var serviceUnavailableRate: Double
        /// Share of requests whose answer is delayed.
        public var delayRate: Double
        /// The delay, in milliseconds, drawn uniformly from this range for delayed requests.
        public var delayMilliseconds: ClosedRange<Int>

        /// No faults.
        public static let none = Faults()

        /// Creates a fault plan; every rate defaults to 0.
        public init(
            notFoundRate: Double = 0,
            goneRate: Double = 0,
            payloadTooLargeRate: Double = 0,
            tooManyRequestsRate: Double = 0,
            tooManyRequestsRetryAfter: Int? = nil,
            internalServerErrorRate: Double = 0,
            serviceUnavailableRate: Double = 0,
            delayRate: Double = 0,
            delayMilliseconds: ClosedRange<Int> = 0...0
        ) {
            self.notFoundRate = notFoundRate
            self.goneRate = goneRate
            self.payloadTooLargeRate = payloadTooLargeRate
            self.tooManyRequestsRate = tooManyRequestsRate
            self.tooManyRequestsRetryAfter = tooManyRequestsRetryAfter
            self.internalServerErrorRate = internalServerErrorRate
            self.serviceUnavailableRate = serviceUnavailableRate
            self.delayRate = delayRate
            self.delayMilliseconds = delayMilliseconds
        }

        /// Whether the plan is ``none``, so that the draws are skipped. Web Push draws from any other plan, even one
        /// with every share at 0; keeping that keeps its seeded runs replaying the same faults.
        var isEmpty: Bool { self == .none }

        /// The sum of the answering faults' rates.
        var answeringRate: Double {
            notFoundRate + goneRate + payloadTooLargeRate + tooManyRequestsRate + internalServerErrorRate + serviceUnavailableRate
        }

        /// Picks this request's fault with `generator`: at most one answer, plus a delay in milliseconds.
        func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: Injection?, delayMilliseconds: Int) {
            var delay = 0
            if delayRate > 0, generator.nextUnitInterval() < delayRate {
                delay = Int.random(in: delayMilliseconds, using: &generator)
            }
            guard answeringRate > 0 else { return (nil, delay) }
            let draw = generator.nextUnitInterval()
            let plan: [(Double, Injection)] = [
                (notFoundRate, .notFound), (goneRate, .gone), (payloadTooLargeRate, .payloadTooLarge),
                (tooManyRequestsRate, .tooManyRequests(retryAfter: tooManyRequestsRetryAfter)),
                (internalServerErrorRate, .internalServerError), (serviceUnavailableRate, .serviceUnavailable),
            ]
            var threshold = 0.0
            for (rate, injection) in plan {
                threshold += rate
                if draw < threshold { return (injection, delay) }
            }
            return (nil, delay)
        }
    }
}

// A `FaultSchedule` draws from the plan when nothing is scripted or queued.
extension WebPushSimulator.Faults: SimulatorFaultPlan {}
