/// One client's token bucket in one realm, as a pure value: it holds up to `burst` tokens, gains
/// `rate` tokens per second, and each admitted request takes one.
///
/// Time is passed in rather than read, so its arithmetic is tested without waiting; callers pass
/// instants of a monotonic clock, so a wall-clock step neither grants nor withholds tokens. A
/// refused request takes nothing: a client retrying too early is not pushed further back.
public struct TokenBucket: Sendable, Equatable {
    /// Tokens gained per second (> 0).
    public let rate: Double
    /// The most tokens the bucket holds (≥ 1).
    public let burst: Double
    /// The tokens held at ``updated``.
    public private(set) var tokens: Double
    /// When ``tokens`` was last brought up to date; also when the client was last seen.
    public private(set) var updated: ContinuousClock.Instant

    /// Floating-point slack: refills summed from many small intervals may fall a hair short of a
    /// whole token that exact arithmetic would reach.
    static let tolerance = 1e-9

    /// The longest `Retry-After` given, in seconds: a tiny `rate` must not overflow `Int`.
    public static let maxRetryAfterSeconds = 1_000_000_000

    /// A full bucket.
    public init(rate: Double, burst: Int, now: ContinuousClock.Instant) {
        precondition(rate > 0 && rate.isFinite && burst >= 1, "a token bucket needs rate > 0 and burst >= 1")
        self.rate = rate
        self.burst = Double(burst)
        self.tokens = Double(burst)
        self.updated = now
    }

    /// Takes a token at `now` if one is available.
    /// - Returns: ``RateLimitDecision/admitted``, or ``RateLimitDecision/refused(retryAfterSeconds:)``
    ///   with the whole seconds until a token will be available (at least 1).
    public mutating func take(at now: ContinuousClock.Instant) -> RateLimitDecision {
        refill(to: now)
        if tokens + Self.tolerance >= 1 {
            tokens = max(0, tokens - 1)
            return .admitted
        }
        return .refused(retryAfterSeconds: Self.retryAfterSeconds(deficit: 1 - tokens, rate: rate))
    }

    /// The tokens the bucket would hold at `now`.
    public func tokens(at now: ContinuousClock.Instant) -> Double {
        min(burst, tokens + Self.seconds(from: updated, to: now) * rate)
    }

    /// Whether the bucket would be full at `now`: such a bucket is the same as none, so it can be forgotten.
    public func isFull(at now: ContinuousClock.Instant) -> Bool {
        tokens(at: now) + Self.tolerance >= burst
    }

    /// Whole seconds until `deficit` tokens accrue at `rate`, rounded up, at least 1 (`Retry-After: 0`
    /// would invite an immediate retry that is refused again).
    static func retryAfterSeconds(deficit: Double, rate: Double) -> Int {
        let wait = (deficit / rate - tolerance).rounded(.up)
        guard wait < Double(maxRetryAfterSeconds) else { return maxRetryAfterSeconds }
        return max(1, Int(wait))
    }

    private mutating func refill(to now: ContinuousClock.Instant) {
        // Instants from several threads may arrive slightly out of order: time never runs backwards here.
        guard now > updated else { return }
        tokens = tokens(at: now)
        updated = now
    }

    /// The seconds from `start` to `end`, 0 when `end` is not later.
    private static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
        guard end > start else { return 0 }
        let (seconds, attoseconds) = start.duration(to: end).components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
