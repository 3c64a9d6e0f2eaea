import HeraldCore
import Testing

@testable import HeraldPipeline

/// How many parts a shared publish is cut into, and how its cuts are thinned to them.
@Suite struct SharedPartsTests {
    private func ids(_ count: Int) -> [SubscriberID] {
        (0..<count).map { SubscriberID(rawValue: String(format: "id%04d", $0)) }
    }

    @Test func fewerCutsThanAllowedAreAllKept() {
        #expect(FanOutService.evenlyThinned(ids(3), to: 63) == ids(3))
        #expect(FanOutService.evenlyThinned([], to: 63).isEmpty)
        #expect(FanOutService.evenlyThinned(ids(5), to: 0).isEmpty)
    }

    @Test func moreCutsAreThinnedToEqualParts() {
        // 11 parts of one unit (10 cuts) into 3 parts (2 cuts): 3, 4 and 4 units.
        let cuts = ids(10)
        #expect(FanOutService.evenlyThinned(cuts, to: 2) == [cuts[2], cuts[6]])
        // 1,024 parts into 64: sixteen units each, the last cut ending the 63rd part.
        let many = ids(1_023)
        let thinned = FanOutService.evenlyThinned(many, to: 63)
        #expect(thinned.count == 63)
        #expect(thinned.first == many[15])
        #expect(thinned.last == many[1_007])
        #expect(thinned == thinned.sorted())
    }

    @Test func partsComeInWholeRoundsOfTheWorkers() {
        // 100,000 members in units of 1,250 (parts of 10,000): ten parts would leave two of four
        // workers idle in the last round; eight larger ones take two full rounds.
        #expect(FanOutService.partCount(units: 80, workers: 4, maxParts: 64) == 8)
        #expect(FanOutService.partCount(units: 81, workers: 4, maxParts: 64) == 8)
        #expect(FanOutService.partCount(units: 160, workers: 4, maxParts: 64) == 20)
        // One worker: parts of the usual size, for the other nodes to take.
        #expect(FanOutService.partCount(units: 80, workers: 1, maxParts: 64) == 10)
        // The most parts allowed, rounded down to whole rounds.
        #expect(FanOutService.partCount(units: 8_192, workers: 4, maxParts: 64) == 64)
        #expect(FanOutService.partCount(units: 8_192, workers: 6, maxParts: 64) == 60)
        #expect(FanOutService.partCount(units: 8_192, workers: 4, maxParts: 3) == 3)
    }

    @Test func aSmallPublishIsStillCutForEveryWorker() {
        // 30,000 members: three usual parts, but four workers each take a part of 7,500.
        #expect(FanOutService.partCount(units: 24, workers: 4, maxParts: 64) == 4)
        // Parts of at least half the usual size: 10 units make two parts, not four.
        #expect(FanOutService.partCount(units: 10, workers: 4, maxParts: 64) == 2)
        // An audience of less than half a part stays whole.
        #expect(FanOutService.partCount(units: 3, workers: 4, maxParts: 64) == 1)
        #expect(FanOutService.partCount(units: 1, workers: 4, maxParts: 64) == 1)
        #expect(FanOutService.partCount(units: 24, workers: 4, maxParts: 0) == 1)
    }

    @Test func thinnedCutsMakePartsOfEqualUnits() {
        // 80 units into 8 parts: every tenth cut.
        let candidates = ids(79)
        let cuts = FanOutService.evenlyThinned(candidates, to: 7)
        #expect(cuts == (1...7).map { candidates[$0 * 10 - 1] })
    }

    @Test func cutsFollowThePagesAlreadyRead() {
        // 80 units; the pages read while the cuts were chosen passed the first 19 candidates:
        // the 60 ahead make 61 units, cut into 8 parts again (two rounds of four workers).
        let candidates = ids(79)
        let cuts = FanOutService.cuts(of: candidates, after: SubscriberID(rawValue: "id0018z"), workers: 4, maxParts: 64)
        #expect(cuts == FanOutService.evenlyThinned(Array(candidates[19...]), to: 7))
        #expect(cuts.count == 7)
        #expect(cuts.allSatisfy { $0 > SubscriberID(rawValue: "id0018z") })
        // A candidate equal to the last member read is passed too (its part would begin after
        // it); one candidate left makes two units, too few for a second part.
        #expect(FanOutService.cuts(of: candidates, after: candidates[78], workers: 4, maxParts: 64).isEmpty)
        #expect(FanOutService.cuts(of: candidates, after: candidates[77], workers: 4, maxParts: 64).isEmpty)
        // Nothing read past the first candidate: the cuts are those of the whole audience.
        #expect(FanOutService.cuts(of: candidates, after: SubscriberID(rawValue: "id"), workers: 4, maxParts: 64)
            == FanOutService.evenlyThinned(candidates, to: 7))
    }
}
