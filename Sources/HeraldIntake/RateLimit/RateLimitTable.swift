import HeraldConfiguration

/// The buckets of one stripe of a ``RateLimiter``, bounded in number.
///
/// A full bucket admits exactly what a new one would, so it is forgotten: every ``sweepInterval``
/// (checked as requests arrive) and whenever the table is at its bound. If a flood of distinct
/// clients leaves the table at its bound with nothing full, the least recently seen quarter is
/// forgotten; those clients start again with a full bucket, which is the price of bounded memory.
struct RateLimitTable: Sendable {
    /// How often full buckets are forgotten while requests keep coming.
    static let sweepInterval: Duration = .seconds(30)

    /// The most buckets held.
    let maxBuckets: Int
    private(set) var buckets: [RateLimitKey: TokenBucket] = [:]
    private var nextSweep: ContinuousClock.Instant?

    /// An empty table of at most `maxBuckets` (≥ 1) buckets.
    init(maxBuckets: Int) {
        self.maxBuckets = max(1, maxBuckets)
    }

    /// Takes a token from `key`'s bucket (a full one of `limit` when it has none).
    mutating func take(_ key: RateLimitKey, limit: HeraldConfiguration.RateLimit, at now: ContinuousClock.Instant) -> RateLimitDecision {
        if let nextSweep, now < nextSweep {
            // Not due.
        } else {
            removeFull(at: now)
            nextSweep = now + Self.sweepInterval
        }
        if let index = buckets.index(forKey: key) {
            return buckets.values[index].take(at: now)
        }
        if buckets.count >= maxBuckets { makeRoom(at: now) }
        var bucket = TokenBucket(rate: limit.rate, burst: limit.burst, now: now)
        let decision = bucket.take(at: now)
        buckets[key] = bucket
        return decision
    }

    /// Forgets full buckets, then, if still above three quarters of the bound, the least recently
    /// seen down to it, so that the sort is paid once per quarter of the bound of new clients.
    mutating func makeRoom(at now: ContinuousClock.Instant) {
        removeFull(at: now)
        let target = maxBuckets * 3 / 4
        guard buckets.count > target else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - target)
        for (key, _) in oldest { buckets[key] = nil }
    }

    /// Forgets every bucket that is full at `now`.
    mutating func removeFull(at now: ContinuousClock.Instant) {
        buckets = buckets.filter { !$0.value.isFull(at: now) }
    }
}
