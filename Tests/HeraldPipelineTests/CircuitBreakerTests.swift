import Testing

@testable import HeraldPipeline

@Suite struct CircuitBreakerTests {
    func breaker(threshold: Int = 3) -> CircuitBreaker {
        CircuitBreaker(threshold: threshold, openDuration: 100, maxOpenDuration: 350)
    }

    @Test func opensAfterTheThresholdOfConsecutiveFailures() {
        var breaker = breaker()
        #expect(breaker.recordFailure(now: 0, probe: false) == nil)
        #expect(breaker.recordFailure(now: 0, probe: false) == nil)
        #expect(breaker.admit(now: 0) == .send)
        #expect(breaker.recordFailure(now: 10, probe: false) == .opened)
        #expect(!breaker.isUp)
        #expect(breaker.admit(now: 50) == .deferred(until: 110))
    }

    @Test func anAnswerResetsTheCount() {
        var breaker = breaker()
        _ = breaker.recordFailure(now: 0, probe: false)
        _ = breaker.recordFailure(now: 0, probe: false)
        #expect(breaker.recordAnswer() == nil, "it was up already")
        _ = breaker.recordFailure(now: 0, probe: false)
        _ = breaker.recordFailure(now: 0, probe: false)
        #expect(breaker.isUp, "two failures since the answer are below the threshold")
        #expect(breaker.isIdle == false)
        _ = breaker.recordAnswer()
        #expect(breaker.isIdle)
    }

    @Test func oneProbeAtATimeAndItsAnswerCloses() {
        var breaker = breaker(threshold: 1)
        #expect(breaker.recordFailure(now: 0, probe: false) == .opened)
        #expect(breaker.admit(now: 100) == .probe)
        #expect(breaker.admit(now: 101) == .deferred(until: 201), "the others wait for the probe")
        #expect(breaker.recordAnswer() == .closed)
        #expect(breaker.admit(now: 102) == .send)
    }

    @Test func aFailedProbeReopensForTwiceAsLongUpToTheCap() {
        var breaker = breaker(threshold: 1)
        _ = breaker.recordFailure(now: 0, probe: false)  // open until 100
        #expect(breaker.admit(now: 100) == .probe)
        #expect(breaker.recordFailure(now: 100, probe: true) == nil, "still down: no transition")
        #expect(breaker.admit(now: 150) == .deferred(until: 300))
        #expect(breaker.admit(now: 300) == .probe)
        _ = breaker.recordFailure(now: 300, probe: true)
        #expect(breaker.admit(now: 301) == .deferred(until: 650), "400 capped at 350")
        #expect(breaker.admit(now: 650) == .probe)
        #expect(breaker.recordAnswer() == .closed)
        _ = breaker.recordFailure(now: 700, probe: false)
        #expect(breaker.admit(now: 701) == .deferred(until: 800), "a new outage starts from the first period again")
    }

    @Test func stragglersOfAnOpenBreakerChangeNothing() {
        var breaker = breaker(threshold: 1)
        _ = breaker.recordFailure(now: 0, probe: false)
        #expect(breaker.recordFailure(now: 5, probe: false) == nil)
        #expect(breaker.admit(now: 50) == .deferred(until: 100), "the open period is not extended")
        #expect(breaker.admit(now: 100) == .probe)
        #expect(breaker.recordFailure(now: 100, probe: false) == nil, "only the probe's failure reopens")
        #expect(breaker.state == .probing)
    }

    @Test func anAbandonedProbeLetsTheNextDeliveryProbe() {
        var breaker = breaker(threshold: 1)
        _ = breaker.recordFailure(now: 0, probe: false)
        #expect(breaker.admit(now: 100) == .probe)
        breaker.abandonProbe(now: 120)
        #expect(breaker.admit(now: 120) == .probe)
    }

    @Test func aZeroThresholdNeverOpens() {
        var breaker = breaker(threshold: 0)
        for _ in 0..<100 { #expect(breaker.recordFailure(now: 0, probe: false) == nil) }
        #expect(breaker.admit(now: 0) == .send)
    }
}
