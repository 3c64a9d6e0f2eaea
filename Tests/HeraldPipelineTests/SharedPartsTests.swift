import HeraldCore
import Testing

@testable import HeraldPipeline

/// How a shared publish's cuts are thinned to the most parts allowed.
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
}
