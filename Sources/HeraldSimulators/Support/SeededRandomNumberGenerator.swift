/// A small deterministic random number generator (SplitMix64), so that fault plans replay identically from a seed.
///
/// `SystemRandomNumberGenerator` cannot be seeded; the simulators need reproducible sequences so that a test
/// that injects "10 % of requests fail" fails the same requests on every run.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        self.state = seed
    }

    /// Returns the next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Returns a uniformly distributed value in `0 ..< 1`.
    public mutating func nextUnitInterval() -> Double {
        // 53 random bits fill a Double's mantissa exactly, so every value is equally likely.
        Double(self.next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
