import Testing

@testable import HeraldSimulators

/// The decision order of `FaultSchedule`: scripted, then queued, then the random plan, from a seeded generator.
@Suite struct FaultScheduleTests {
    /// A plan that answers every request with `fault` when `strikes`, and draws one value from the generator for it,
    /// so that the tests can see when the schedule consults the plan.
    struct EveryRequest: SimulatorFaultPlan {
        var strikes = false
        var fault = "drawn"

        static let none = EveryRequest()

        var isEmpty: Bool { !self.strikes }

        func draw(using generator: inout SeededRandomNumberGenerator) -> (injection: String?, delayMilliseconds: Int) {
            _ = generator.next()
            return (self.fault, 7)
        }
    }

    @Test func withNothingScheduledEveryRequestIsProcessed() {
        var schedule = FaultSchedule<EveryRequest>(seed: 1)
        for _ in 0..<3 {
            let decided = schedule.arrive()
            #expect(decided.injection == nil)
            #expect(decided.delayMilliseconds == 0)
        }
        #expect(schedule.arrivals == 3)
    }

    @Test func scriptedInjectionsHitTheirRequestNumberOnce() {
        var schedule = FaultSchedule<EveryRequest>(seed: 1)
        schedule.inject("second", atRequest: 2)
        schedule.inject("fourth", atRequest: 4)
        let decided = (1...5).map { _ in schedule.arrive().injection }
        #expect(decided == [nil, "second", nil, "fourth", nil])
    }

    @Test func scriptingARequestNumberAgainReplacesTheInjection() {
        var schedule = FaultSchedule<EveryRequest>(seed: 1)
        schedule.inject("first", atRequest: 1)
        schedule.inject("replaced", atRequest: 1)
        #expect(schedule.arrive().injection == "replaced")
    }

    @Test func queuedInjectionsComeInOrderAndScriptedOnesGoFirst() {
        var schedule = FaultSchedule<EveryRequest>(seed: 1)
        schedule.injectNext(["a", "b"])
        schedule.injectNext(["c"])
        schedule.inject("scripted", atRequest: 2)
        let decided = (1...5).map { _ in schedule.arrive().injection }
        #expect(decided == ["a", "scripted", "b", "c", nil])
    }

    @Test func thePlanIsDrawnOnlyWhenNothingIsScriptedOrQueued() {
        var schedule = FaultSchedule<EveryRequest>(seed: 1)
        schedule.plan = EveryRequest(strikes: true)
        schedule.injectNext(["queued"])
        let queued = schedule.arrive()
        #expect(queued.injection == "queued")
        #expect(queued.delayMilliseconds == 0)
        let drawn = schedule.arrive()
        #expect(drawn.injection == "drawn")
        #expect(drawn.delayMilliseconds == 7)
    }

    @Test func anEmptyPlanLeavesTheGeneratorAlone() {
        var schedule = FaultSchedule<EveryRequest>(seed: 42)
        for _ in 0..<10 {
            _ = schedule.arrive()
        }
        var fresh = SeededRandomNumberGenerator(seed: 42)
        #expect(schedule.nextRandom() == fresh.next())
    }

    @Test func drawsAndIdsShareTheGenerator() {
        var schedule = FaultSchedule<EveryRequest>(seed: 42)
        schedule.plan = EveryRequest(strikes: true)
        _ = schedule.arrive()
        var fresh = SeededRandomNumberGenerator(seed: 42)
        _ = fresh.next()
        #expect(schedule.nextRandom() == fresh.next())
    }

    @Test func aSeededRealPlanReplaysIdentically() {
        let faults = APNsSimulator.Faults(
            internalServerErrorRate: 0.2, serviceUnavailableRate: 0.2, tooManyRequestsRate: 0.1, hangRate: 0.1,
            delayRate: 0.5, delayMilliseconds: 1...50)
        func run() -> [(injection: APNsSimulator.Injection?, delayMilliseconds: Int)] {
            var schedule = FaultSchedule<APNsSimulator.Faults>(seed: 7)
            schedule.plan = faults
            return (0..<200).map { _ in schedule.arrive() }
        }
        let first = run()
        let second = run()
        #expect(first.map(\.injection) == second.map(\.injection))
        #expect(first.map(\.delayMilliseconds) == second.map(\.delayMilliseconds))
        // With 60 % of requests failing, 200 requests cannot all pass or all fail, whatever the seed draws.
        #expect(first.contains { $0.injection == nil })
        #expect(first.contains { $0.injection != nil })
    }
}
