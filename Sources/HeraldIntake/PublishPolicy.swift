/// The limits on what a publish may ask beside its payload (`delivery:` settings).
public struct PublishPolicy: Sendable, Equatable {
    /// How long an `Idempotency-Key` is remembered (`idempotency_window`). Default 24 hours.
    public var idempotencyWindow: Duration
    /// How far ahead `at` or `delay` may schedule a publish (`max_schedule_ahead`). Default 30 days.
    public var maxScheduleAhead: Duration

    /// Creates a policy; every argument defaults to the documented default.
    public init(idempotencyWindow: Duration = .seconds(86_400), maxScheduleAhead: Duration = .seconds(2_592_000)) {
        self.idempotencyWindow = idempotencyWindow
        self.maxScheduleAhead = maxScheduleAhead
    }
}
