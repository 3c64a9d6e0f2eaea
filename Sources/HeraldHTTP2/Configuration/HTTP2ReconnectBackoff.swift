import NIOCore

/// Exponential backoff between attempts to open a connection after failures.
///
/// APNs treats rapid connect/disconnect cycles as abuse, so failed attempts are spaced out:
/// `initial`, then `initial × multiplier`, … up to `maximum`, each randomised by ± `jitter`
/// so that many servers restarting together do not reconnect in lockstep.
public struct HTTP2ReconnectBackoff: Sendable, Hashable {
    /// The delay after the first failure.
    public var initial: Duration

    /// The longest delay.
    public var maximum: Duration

    /// The factor applied to the delay after each further failure.
    public var multiplier: Double

    /// The relative random spread applied to every delay, from 0 (none) to 1.
    public var jitter: Double

    /// Creates a backoff policy.
    ///
    /// - Parameters:
    ///   - initial: The delay after the first failure.
    ///   - maximum: The longest delay.
    ///   - multiplier: The growth factor per failure.
    ///   - jitter: The relative random spread, from 0 to 1.
    public init(
        initial: Duration = .milliseconds(100),
        maximum: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Double = 0.2
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay before the next attempt after `failures` consecutive failures, without jitter.
    ///
    /// - Parameter failures: Consecutive failed attempts so far, at least 1.
    /// - Returns: The delay, never more than ``maximum``.
    func delay(afterFailures failures: Int) -> Duration {
        let initial = Double(TimeAmount(self.initial).nanoseconds)
        let maximum = Double(TimeAmount(self.maximum).nanoseconds)
        // Grow in Double and stop at the cap: a large failure count would overflow Int64.
        var raw = initial
        var step = 1
        while step < failures && raw < maximum {
            raw *= max(1, self.multiplier)
            step += 1
        }
        return .nanoseconds(Int64(min(raw, maximum)))
    }

    /// Spreads `delay` randomly by ± ``jitter``.
    ///
    /// - Parameters:
    ///   - delay: The delay from ``delay(afterFailures:)``.
    ///   - generator: The source of randomness.
    /// - Returns: The randomised delay.
    func jittered(_ delay: Duration, using generator: inout some RandomNumberGenerator) -> Duration {
        let spread = min(max(self.jitter, 0), 1)
        guard spread > 0 else { return delay }
        let factor = Double.random(in: (1 - spread)...(1 + spread), using: &generator)
        return .nanoseconds(Int64(Double(TimeAmount(delay).nanoseconds) * factor))
    }
}
