import HeraldConfiguration
import HeraldCore
import Metrics

/// Per-client token buckets for the realms `server.rate_limit` names, shared by every front door
/// of one node (the HTTP routes, the UDP ports, the compat front-ends): buckets are per node.
///
/// It knows no transport: callers name the realm and the client (``RateLimitClient``) and map a
/// refusal to their own answer. Buckets are spread over striped locks and bounded in number (see
/// ``RateLimitTable``), so a flood of distinct source addresses cannot grow memory without bound.
/// Every refusal is counted in `herald_rate_limited_total{realm}`.
public final class RateLimiter: Sendable {
    /// The default bound on buckets held at once, over all realms and clients (a few MB at most).
    public static let defaultMaxBuckets = 100_000
    /// How many locks share the buckets.
    static let stripeCount = 16

    private let limits: [Realm: HeraldConfiguration.RateLimit]
    private let stripes: [RateLimitStripe]
    private let refusals: [Realm: Counter]
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A limiter for `limits`; realms without one are never limited.
    ///
    /// - Parameters:
    ///   - maxBuckets: the most buckets held at once.
    ///   - metricsFactory: where `herald_rate_limited_total` is counted.
    ///   - now: the time source, monotonic; tests pass their own to move time without waiting.
    public init(
        limits: [Realm: HeraldConfiguration.RateLimit],
        maxBuckets: Int = RateLimiter.defaultMaxBuckets,
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        // The configuration refuses these; checked here so that a limit built in code fails at start-up, not on a request.
        precondition(limits.values.allSatisfy { $0.rate > 0 && $0.rate.isFinite && $0.burst >= 1 }, "a rate limit needs rate > 0 and burst >= 1")
        self.limits = limits
        let perStripe = max(1, maxBuckets / Self.stripeCount)
        self.stripes = (0..<Self.stripeCount).map { _ in RateLimitStripe(maxBuckets: perStripe) }
        // Made up front so that a limited realm shows 0 in `/metrics` before its first refusal.
        self.refusals = limits.keys.reduce(into: [:]) { counters, realm in
            counters[realm] = Counter(label: "herald_rate_limited_total", dimensions: [("realm", realm.rawValue)], factory: metricsFactory)
        }
        self.now = now
    }

    /// A limiter that limits nothing (it holds no bucket, so one instance serves everyone).
    public static let unlimited = RateLimiter(limits: [:])

    /// Whether `realm` has a limit.
    public func isLimited(_ realm: Realm) -> Bool { limits[realm] != nil }

    /// Takes a token from `client`'s bucket in `realm`; always admitted when the realm has no limit.
    public func admit(_ realm: Realm, client: RateLimitClient) -> RateLimitDecision {
        guard let limit = limits[realm] else { return .admitted }
        let key = RateLimitKey(realm: realm, client: client)
        let stripe = stripes[Int(UInt(bitPattern: key.hashValue) % UInt(stripes.count))]
        let now = self.now
        let decision = stripe.table.withLock { $0.take(key, limit: limit, at: now()) }
        if case .refused = decision { refusals[realm]?.increment() }
        return decision
    }

    /// The buckets held now, over all stripes (for tests and diagnostics).
    public var bucketCount: Int {
        stripes.reduce(0) { count, stripe in count + stripe.table.withLock { $0.buckets.count } }
    }
}
