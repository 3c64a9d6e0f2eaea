/// How the pipeline fans out, retries and counts failures (`delivery:` in the configuration).
public struct DeliveryPolicy: Sendable, Equatable {
    /// Consecutive subscriber failures before it is unregistered; 0 disables. Default 5.
    public var maxFailures = 5
    /// Attempts in total for a delivery that keeps failing transiently. Default 5.
    public var maxAttempts = 5
    /// Delay before the first retry; it doubles per attempt. Default 1 s.
    public var retryDelay: Duration = .seconds(1)
    /// Longest delay between two attempts. Default 300 s.
    public var maxRetryDelay: Duration = .seconds(300)
    /// Subscribers per fan-out page. Default 500.
    public var batchSize = 500
    /// Deliveries of one job handed to providers and not yet checkpointed. This bounds the
    /// duplicates a crash can cause. Default 2000.
    public var inFlight = 2000
    /// Publish jobs fanned out at the same time by this process. Default 4.
    public var concurrentJobs = 4
    /// How long a claim on a job or retry lasts without renewal. Default 30 s.
    public var leaseDuration: Duration = .seconds(30)
    /// How long after publishing a delivery may still be retried; `nil` = no bound. Default 1 day.
    public var maxRetryAge: Duration? = .seconds(86_400)
    /// How long in-flight deliveries may take to finish after SIGTERM before they are abandoned
    /// (and resumed from the last checkpoint on the next start). Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// How long dead letters are kept; `nil` = forever. Default 7 days.
    public var deadLetterRetention: Duration? = .seconds(7 * 86_400)
    /// How long feedback entries are kept; `nil` = forever. Default 30 days.
    public var feedbackRetention: Duration? = .seconds(30 * 86_400)
    /// How long the receipts of finished publishes are kept; `nil` = forever. Default 7 days.
    public var receiptRetention: Duration? = .seconds(7 * 86_400)
    /// How long a publish's idempotency key is remembered. Default 24 hours.
    public var idempotencyWindow: Duration = .seconds(86_400)
    /// How often old dead letters, feedback and receipts are pruned. Default 1 hour.
    public var pruneInterval: Duration = .seconds(3600)
    /// How often idle workers look for work published by other nodes. Default 1 s.
    public var pollInterval: Duration = .seconds(1)
    /// How long answers are gathered before they are recorded in one transaction (unless a page's
    /// worth is waiting). Default 20 ms.
    public var commitInterval: Duration = .milliseconds(20)
    /// Consecutive connection failures or expired deadlines after which a destination's circuit
    /// breaker opens; 0 never opens it. Default 5.
    public var breakerThreshold = 5
    /// How long an open breaker first defers deliveries before one probe is let through; it
    /// doubles while probes fail, up to ``breakerMaxOpenDuration``. Default 2 s.
    public var breakerOpenDuration: Duration = .seconds(2)
    /// The longest an open breaker defers deliveries between probes. Default 60 s.
    public var breakerMaxOpenDuration: Duration = .seconds(60)
    /// Deliveries in flight per provider, by name, where configured (`max_in_flight`); others
    /// get ``inFlight`` (push services) or their kind's concurrency (subscriber-addressed kinds).
    public var providerBudgets: [String: Int] = [:]
    /// Deliveries in flight per destination host, by provider name, where configured
    /// (`max_in_flight_per_host`); others get ``defaultHostLimit``.
    public var hostLimits: [String: Int] = [:]
    /// Deliveries in flight to one host of a subscriber-addressed kind, by default. Default 64.
    public var defaultHostLimit = 64
    /// Members per part when a publish's audience is shared out so that every node's workers send
    /// part of it; `nil` (the default, one node) keeps each publish one job.
    public var sharedPartSize: Int?
    /// The most parts one publish is cut into. Default 64.
    public var maxSharedParts = 64

    /// The defaults.
    public init() {}

    /// The bulkheads of `providers`: a budget for each, and a host limit for each kind whose
    /// subscribers name their own destination.
    func bulkheadLimits(for providers: ProviderSet) -> ProviderBulkheads.Limits {
        var budgets: [String: Int] = [:]
        var hosts: [String: Int] = [:]
        for (name, provider) in providers.byName {
            let addressed = provider.hasSubscriberDestinations
            budgets[name] = providerBudgets[name] ?? (addressed ? provider.maxConcurrentDeliveries : inFlight)
            if addressed { hosts[name] = hostLimits[name] ?? defaultHostLimit }
        }
        return ProviderBulkheads.Limits(
            budgets: budgets, hostLimits: hosts, breakerThreshold: breakerThreshold,
            breakerOpenMillis: breakerOpenDuration.milliseconds, breakerMaxOpenMillis: breakerMaxOpenDuration.milliseconds)
    }

    /// The delay before attempt `attempts + 1`: exponential from ``retryDelay``, capped at
    /// ``maxRetryDelay``, with ±20 % jitter so that retries of one outage do not arrive together,
    /// and never shorter than the service's `Retry-After`.
    func retryDelay(afterAttempts attempts: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(max(attempts - 1, 0), 30)
        var delay = retryDelay * (1 << exponent)
        if delay > maxRetryDelay { delay = maxRetryDelay }
        delay = delay * Double.random(in: 0.8...1.2, using: &random)
        if let retryAfter, retryAfter > delay { delay = retryAfter }
        return delay
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
