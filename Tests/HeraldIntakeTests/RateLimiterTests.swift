import HeraldConfiguration
import HeraldCore
@testable import HeraldIntake
import Testing

/// The limiter's buckets per realm and client, with an injected time source.
@Suite struct RateLimiterTests {
    let time = ManualTime()

    func limiter(_ limits: [Realm: HeraldConfiguration.RateLimit], maxBuckets: Int = RateLimiter.defaultMaxBuckets) -> RateLimiter {
        let time = self.time
        return RateLimiter(limits: limits, maxBuckets: maxBuckets, now: { time.now })
    }

    @Test func eachClientAndEachRealmHasItsOwnBucket() {
        let limiter = limiter([.register: .init(rate: 1, burst: 1), .publish: .init(rate: 1, burst: 1)])
        #expect(limiter.admit(.register, client: .user("a")) == .admitted)
        #expect(limiter.admit(.register, client: .user("a")) == .refused(retryAfterSeconds: 1))
        #expect(limiter.admit(.register, client: .user("b")) == .admitted, "another user")
        #expect(limiter.admit(.publish, client: .user("a")) == .admitted, "another realm")
        #expect(limiter.admit(.register, client: RateLimitClient(address: "10.0.0.1")) == .admitted)
        #expect(!limiter.admit(.register, client: RateLimitClient(address: "10.0.0.1")).isAdmitted)
    }

    @Test func aRealmWithoutALimitIsNeverLimited() {
        let limiter = limiter([.publish: .init(rate: 1, burst: 1)])
        #expect(!limiter.isLimited(.admin))
        for _ in 0..<1000 { #expect(limiter.admit(.admin, client: .user("a")) == .admitted) }
        #expect(limiter.bucketCount == 0, "no bucket is kept for an unlimited realm")
    }

    @Test func theBucketRefillsAsTimePasses() {
        let limiter = limiter([.register: .init(rate: 20, burst: 1)])
        #expect(limiter.admit(.register, client: .user("a")) == .admitted)
        #expect(limiter.admit(.register, client: .user("a")) == .refused(retryAfterSeconds: 1))
        time.advance(by: .milliseconds(49))
        #expect(!limiter.admit(.register, client: .user("a")).isAdmitted)
        time.advance(by: .milliseconds(1))
        #expect(limiter.admit(.register, client: .user("a")) == .admitted)
    }

    @Test func aFloodOfDistinctAddressesStaysWithinTheBound() {
        // A tiny rate: no bucket refills during the flood, so only the bound can make room.
        let limiter = limiter([.publish: .init(rate: 0.001, burst: 1)], maxBuckets: 256)
        for index in 0..<20_000 {
            let address = "2001:db8:\(String(index >> 16, radix: 16)):\(String(index & 0xFFFF, radix: 16))::1"
            #expect(limiter.admit(.publish, client: RateLimitClient(address: address)) == .admitted)
        }
        #expect(limiter.bucketCount <= 256)
        #expect(limiter.bucketCount > 0)
    }

    @Test func theMostRecentlySeenClientsAreKeptWhenRoomIsMade() {
        var table = RateLimitTable(maxBuckets: 8)
        let limit = HeraldConfiguration.RateLimit(rate: 0.001, burst: 1)
        var now = time.now
        for index in 0..<8 {
            now += .milliseconds(1)
            _ = table.take(RateLimitKey(realm: .publish, client: .user("u\(index)")), limit: limit, at: now)
        }
        now += .milliseconds(1)
        _ = table.take(RateLimitKey(realm: .publish, client: .user("new")), limit: limit, at: now)
        #expect(table.buckets.count <= 8)
        #expect(table.buckets[RateLimitKey(realm: .publish, client: .user("u0"))] == nil, "the least recently seen went first")
        #expect(table.buckets[RateLimitKey(realm: .publish, client: .user("u7"))] != nil)
        #expect(table.buckets[RateLimitKey(realm: .publish, client: .user("new"))] != nil)
    }

    @Test func fullBucketsAreForgottenBySweeps() {
        var table = RateLimitTable(maxBuckets: 1000)
        let limit = HeraldConfiguration.RateLimit(rate: 10, burst: 1)
        let start = time.now
        for index in 0..<100 {
            _ = table.take(RateLimitKey(realm: .register, client: .user("u\(index)")), limit: limit, at: start)
        }
        #expect(table.buckets.count == 100)
        // Past the sweep interval every bucket has refilled: the next request's sweep forgets them.
        _ = table.take(RateLimitKey(realm: .register, client: .user("late")), limit: limit, at: start + RateLimitTable.sweepInterval)
        #expect(table.buckets.count == 1)
    }

    @Test func aForgottenBucketAdmitsWhatItWouldHaveAdmitted() {
        let limiter = limiter([.register: .init(rate: 1, burst: 2)], maxBuckets: 16)
        #expect(limiter.admit(.register, client: .user("a")) == .admitted)
        #expect(limiter.admit(.register, client: .user("a")) == .admitted)
        #expect(!limiter.admit(.register, client: .user("a")).isAdmitted)
        time.advance(by: .seconds(1))
        #expect(limiter.admit(.register, client: .user("a")) == .admitted)
        #expect(!limiter.admit(.register, client: .user("a")).isAdmitted, "one second refilled one token, not the burst")
    }
}
