@testable import HeraldIntake
import Testing

/// The token bucket's arithmetic, with time passed in.
@Suite struct TokenBucketTests {
    let start = ContinuousClock.now

    @Test func aFullBucketAdmitsItsBurstThenRefuses() {
        var bucket = TokenBucket(rate: 1, burst: 3, now: start)
        #expect(bucket.take(at: start) == .admitted)
        #expect(bucket.take(at: start) == .admitted)
        #expect(bucket.take(at: start) == .admitted)
        #expect(bucket.take(at: start) == .refused(retryAfterSeconds: 1))
    }

    @Test func aFractionalRateRefillsOneTokenPerPeriod() {
        // 0.5 per second: one request every two seconds.
        var bucket = TokenBucket(rate: 0.5, burst: 1, now: start)
        #expect(bucket.take(at: start) == .admitted)
        #expect(bucket.take(at: start) == .refused(retryAfterSeconds: 2))
        #expect(bucket.take(at: start + .seconds(1)) == .refused(retryAfterSeconds: 1))
        #expect(bucket.take(at: start + .milliseconds(1999)) == .refused(retryAfterSeconds: 1))
        #expect(bucket.take(at: start + .seconds(2)) == .admitted)
        #expect(bucket.take(at: start + .seconds(2)) == .refused(retryAfterSeconds: 2))
    }

    @Test func refillsFromManySmallStepsAddUpToWholeTokens() {
        // 0.1 s steps at 1 per second: floating-point sums fall a hair short of 1.0 without tolerance.
        var bucket = TokenBucket(rate: 1, burst: 1, now: start)
        #expect(bucket.take(at: start) == .admitted)
        var now = start
        for _ in 0..<9 {
            now += .milliseconds(100)
            #expect(bucket.take(at: now) == .refused(retryAfterSeconds: 1))
        }
        #expect(bucket.take(at: now + .milliseconds(100)) == .admitted)
    }

    @Test(arguments: [
        (0.4, 0.0, 3),  // 2.5 s rounds up to 3
        (20.0, 0.0, 1),  // 0.05 s is at least 1
        (3.0, 0.0, 1),
        (0.1, 0.7, 3),  // 1 - 0.7 is 0.30000000000000004: still 3 s, not 4
        (1.0 / 3.0, 0.0, 3),
        (0.25, 0.5, 2),
    ])
    func retryAfterIsWholeSecondsRoundedUpAndAtLeastOne(rate: Double, tokens: Double, seconds: Int) {
        #expect(TokenBucket.retryAfterSeconds(deficit: 1 - tokens, rate: rate) == seconds)
    }

    @Test func aTinyRateGivesABoundedRetryAfter() {
        var bucket = TokenBucket(rate: 1e-300, burst: 1, now: start)
        #expect(bucket.take(at: start) == .admitted)
        #expect(bucket.take(at: start) == .refused(retryAfterSeconds: TokenBucket.maxRetryAfterSeconds))
    }

    @Test func aRefusalTakesNothing() {
        var bucket = TokenBucket(rate: 1, burst: 1, now: start)
        #expect(bucket.take(at: start) == .admitted)
        for _ in 0..<100 { #expect(!bucket.take(at: start + .milliseconds(500)).isAdmitted) }
        #expect(bucket.take(at: start + .seconds(1)) == .admitted, "retrying early did not push the next token back")
    }

    @Test func theBucketNeverHoldsMoreThanItsBurst() {
        var bucket = TokenBucket(rate: 100, burst: 2, now: start)
        let later = start + .seconds(3600)
        #expect(bucket.tokens(at: later) == 2)
        #expect(bucket.take(at: later) == .admitted)
        #expect(bucket.take(at: later) == .admitted)
        #expect(!bucket.take(at: later).isAdmitted)
    }

    @Test func fullnessIsReachedOnlyOnceEveryTokenIsBack() {
        var bucket = TokenBucket(rate: 2, burst: 2, now: start)
        #expect(bucket.isFull(at: start))
        _ = bucket.take(at: start)
        _ = bucket.take(at: start)
        #expect(!bucket.isFull(at: start + .milliseconds(999)))
        #expect(bucket.isFull(at: start + .seconds(1)))
    }

    @Test func anEarlierInstantDoesNotRunTimeBackwards() {
        var bucket = TokenBucket(rate: 1, burst: 1, now: start + .seconds(10))
        #expect(bucket.take(at: start + .seconds(10)) == .admitted)
        #expect(bucket.take(at: start + .seconds(9)) == .refused(retryAfterSeconds: 1))
        #expect(bucket.take(at: start + .seconds(11)) == .admitted)
    }
}
