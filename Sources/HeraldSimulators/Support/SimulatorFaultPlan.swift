/// A simulator's random fault plan: the shares of requests that get an injected answer or a delay.
///
/// Each simulator words its own plan (APNs reasons, FCM error codes, HTTP statuses); ``FaultSchedule`` only needs
/// to know whether the plan can strike and how to draw from it.
protocol SimulatorFaultPlan: Sendable {
    /// What a request can get instead of ordinary processing.
    associatedtype Injection: Sendable

    /// The plan without faults.
    static var none: Self { get }

    /// Whether no fault can strike: the schedule then skips the draw, so the seeded generator does not advance and
    /// the ids drawn from it stay what they would be without a plan.
    var isEmpty: Bool { get }

    /// Picks one request's fault with `generator`: at most one answering injection, plus a delay in milliseconds
    /// (0 for none).
    func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: Injection?, delayMilliseconds: Int)
}
