import HeraldCore
import Logging
import Metrics
import Synchronization

/// Keeps one destination's trouble to itself: an in-flight budget and a circuit breaker per
/// provider, and for kinds whose subscribers name their own destination, a limit and a breaker
/// per host as well.
///
/// A push service that hangs can then hold at most its budget of deliveries, and once its
/// breaker opens, none: its deliveries wait in the retry queue instead of in the window that
/// every other provider's deliveries need.
final class ProviderBulkheads: Sendable {
    /// The limits of the bulkheads.
    struct Limits: Sendable, Equatable {
        /// Deliveries in flight per provider, by provider name.
        var budgets: [String: Int]
        /// Deliveries in flight per host, for kinds with destination hosts, by provider name.
        var hostLimits: [String: Int]
        /// Consecutive connection failures or expired deadlines that open a breaker (0: never).
        var breakerThreshold: Int
        /// How long a breaker first stays open (milliseconds); it doubles while probes fail.
        var breakerOpenMillis: Int64
        /// The longest a breaker stays open (milliseconds).
        var breakerMaxOpenMillis: Int64
    }

    /// One provider's bulkhead.
    final class Compartment: Sendable {
        /// The provider's name.
        let name: String
        /// Its deliveries in flight.
        let budget: AsyncSemaphore
        /// Deliveries in flight per host; 0 when the kind has no hosts.
        let hostLimit: Int
        fileprivate let breaker: Mutex<CircuitBreaker>
        /// Whether the breaker is closed with no failure counted, kept beside it so that an answer,
        /// the usual outcome, is counted without taking the lock.
        fileprivate let idle = Atomic<Bool>(true)
        fileprivate let hosts: Mutex<[String: HostCompartment]>
        fileprivate let up: Gauge
        /// `herald_deliveries_in_flight{provider}`: recorded when sampled (``ProviderBulkheads/sampleInFlight()``),
        /// not on every acquire, so the hot path pays nothing for it.
        fileprivate let inFlight: Gauge

        fileprivate init(name: String, budget: Int, hostLimit: Int, breaker: CircuitBreaker, factory: any MetricsFactory) {
            self.name = name
            self.budget = AsyncSemaphore(capacity: budget)
            self.hostLimit = hostLimit
            self.breaker = Mutex(breaker)
            self.hosts = Mutex([:])
            self.up = Gauge(label: "herald_provider_up", dimensions: [("provider", name)], factory: factory)
            up.record(1)
            self.inFlight = Gauge(label: "herald_deliveries_in_flight", dimensions: [("provider", name)], factory: factory)
            inFlight.record(0)
        }
    }

    /// One host's limit and breaker, made when a delivery first goes there and dropped when idle.
    fileprivate final class HostCompartment: Sendable {
        let limit: AsyncSemaphore
        let breaker: Mutex<CircuitBreaker>
        /// Deliveries holding or waiting for this compartment (guarded by the compartment's `hosts` lock).
        let users: Mutex<Int>

        init(limit: Int, breaker: CircuitBreaker) {
            self.limit = AsyncSemaphore(capacity: limit)
            self.breaker = Mutex(breaker)
            self.users = Mutex(0)
        }
    }

    private let compartments: [String: Compartment]
    private let template: CircuitBreaker
    /// The longest a delivery waits for a slot at its host before it is deferred (milliseconds).
    private let hostWaitMillis: Int64
    private let logger: Logger

    /// Creates the bulkheads of the named providers.
    init(limits: Limits, logger: Logger, factory: any MetricsFactory) {
        let template = CircuitBreaker(
            threshold: limits.breakerThreshold, openDuration: limits.breakerOpenMillis, maxOpenDuration: limits.breakerMaxOpenMillis)
        var compartments: [String: Compartment] = [:]
        for (name, budget) in limits.budgets {
            compartments[name] = Compartment(
                name: name, budget: budget, hostLimit: limits.hostLimits[name] ?? 0, breaker: template, factory: factory)
        }
        self.compartments = compartments
        self.template = template
        self.hostWaitMillis = max(1, limits.breakerOpenMillis)
        self.logger = logger
    }

    /// Records each provider's deliveries in flight now: the permits of its budget that are held.
    func sampleInFlight() {
        for compartment in compartments.values {
            compartment.inFlight.record(compartment.budget.capacity - compartment.budget.available)
        }
    }

    /// The compartment of a provider.
    subscript(provider: String) -> Compartment? { compartments[provider] }

    /// Asks the provider's breaker about a delivery (or a batch) at `now`.
    func admit(_ compartment: Compartment, now: Int64) -> CircuitBreaker.Admission {
        if compartment.idle.load(ordering: .relaxed) { return .send }
        return compartment.breaker.withLock { $0.admit(now: now) }
    }

    /// Counts an outcome of the provider's (a batch kind's) delivery.
    func record(_ outcome: DeliveryOutcome, probe: Bool, in compartment: Compartment, now: Int64) {
        let failure = Self.isFailure(outcome)
        if !failure, compartment.idle.load(ordering: .relaxed) { return }
        let transition = compartment.breaker.withLock { breaker in
            let transition = failure ? breaker.recordFailure(now: now, probe: probe) : breaker.recordAnswer()
            compartment.idle.store(breaker.isIdle, ordering: .relaxed)
            return transition
        }
        guard let transition else { return }
        switch transition {
        case .opened:
            compartment.up.record(0)
            logger.warning("provider stopped answering; its deliveries wait in the retry queue", metadata: [
                "provider": "\(compartment.name)", "reason": "\(outcome.reason ?? "-")",
            ])
        case .closed:
            compartment.up.record(1)
            logger.notice("provider answers again", metadata: ["provider": "\(compartment.name)"])
        }
    }

    /// Gives up a probe that got no outcome.
    func abandonProbe(in compartment: Compartment, now: Int64) {
        compartment.breaker.withLock { $0.abandonProbe(now: now) }
    }

    /// Runs `body` for one delivery to `host` within the host's limit and breaker, then the
    /// provider's budget; a delivery the host's breaker holds back, or that waits longer than the
    /// breaker's first open period for a slot at the host, is answered `deferred` without `body`
    /// running.
    ///
    /// The host's limit is taken first, so that deliveries waiting for a slow host do not hold the
    /// provider's budget that other hosts' deliveries need.
    func withHost(
        _ host: String, in compartment: Compartment, clock: WallClock,
        _ body: () async -> DeliveryOutcome
    ) async throws -> HostAttempt {
        let entry = compartment.hosts.withLock { hosts -> HostCompartment in
            let entry = hosts[host] ?? HostCompartment(limit: compartment.hostLimit, breaker: template)
            hosts[host] = entry
            entry.users.withLock { $0 += 1 }
            return entry
        }
        defer {
            compartment.hosts.withLock { hosts in
                let remaining = entry.users.withLock { users -> Int in
                    users -= 1
                    return users
                }
                if remaining == 0, entry.breaker.withLock({ $0.isIdle }) { hosts[host] = nil }
            }
        }
        // A host that holds its whole limit for this long is treated like one whose breaker is open:
        // its waiting deliveries go back to the retry queue instead of holding the window that
        // every other destination's deliveries need.
        guard try await entry.limit.acquire(within: .milliseconds(hostWaitMillis)) else {
            return .deferred(until: clock.nowMillis() + hostWaitMillis)
        }
        defer { entry.limit.release() }
        let admission = entry.breaker.withLock { $0.admit(now: clock.nowMillis()) }
        if case .deferred(let until) = admission { return .deferred(until: until) }
        try await compartment.budget.acquire()
        let outcome = await body()
        compartment.budget.release()
        let transition = Self.apply(outcome, probe: admission == .probe, to: entry.breaker, now: clock.nowMillis())
        switch transition {
        case .opened?:
            logger.warning("destination host stopped answering; its deliveries wait in the retry queue", metadata: [
                "provider": "\(compartment.name)", "host": "\(host)", "reason": "\(outcome.reason ?? "-")",
            ])
        case .closed?:
            logger.notice("destination host answers again", metadata: ["provider": "\(compartment.name)", "host": "\(host)"])
        case nil:
            break
        }
        return .sent(outcome)
    }

    /// What came of a delivery to a host.
    enum HostAttempt: Sendable {
        /// It was sent and answered (or failed) with this outcome.
        case sent(DeliveryOutcome)
        /// The host's breaker is open: try again after `until` (Unix milliseconds).
        case deferred(until: Int64)
    }

    /// Feeds an outcome to a breaker: an answer of any kind shows the destination is up; a
    /// failure (``isFailure(_:)``) counts against it.
    private static func apply(_ outcome: DeliveryOutcome, probe: Bool, to breaker: borrowing Mutex<CircuitBreaker>, now: Int64) -> CircuitBreaker.Transition? {
        breaker.withLock { breaker in
            isFailure(outcome) ? breaker.recordFailure(now: now, probe: probe) : breaker.recordAnswer()
        }
    }

    /// Whether an outcome counts against the destination: a transient failure without a status,
    /// that is no connection or no answer before the deadline.
    private static func isFailure(_ outcome: DeliveryOutcome) -> Bool {
        outcome.outcome == .transient && outcome.status == nil
    }
}
