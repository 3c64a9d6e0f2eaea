import HeraldCore
import Testing

@testable import HeraldPipeline

@Suite struct FanOutProgressTests {
    func ids(_ numbers: ClosedRange<Int>) -> [SubscriberID] {
        numbers.map { SubscriberID(rawValue: String(format: "s%04d", $0)) }
    }

    @Test func aSlowDeliveryKeepsOnlyItselfPendingWhileTheCursorMovesOn() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        let first = ids(1...3)
        progress.handOver(first, through: first[2])
        progress.settle(first[0])
        progress.settle(first[2])
        let second = ids(4...6)
        progress.handOver(second, through: second[2])
        for id in second { progress.settle(id) }
        let checkpoint = progress.checkpoint()
        #expect(checkpoint.cursor == second[2])
        #expect(checkpoint.pending == [first[1]])
        #expect(!checkpoint.complete)
    }

    @Test func completeOnlyOnceEveryPageIsReadAndEveryOutcomeSettled() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        let page = ids(1...2)
        progress.handOver(page, through: page[1])
        progress.finishReading()
        #expect(!progress.isComplete)
        progress.settle(page[0])
        progress.settle(page[1])
        #expect(progress.isComplete)
        #expect(progress.checkpoint().complete)
    }

    @Test func resumingKeepsThePreviousPendingUntilSettled() {
        let previous = ids(1...2)
        var progress = FanOutProgress(cursor: SubscriberID(rawValue: "s0009"), pending: previous)
        #expect(Set(progress.checkpoint().pending) == Set(previous))
        progress.settle(previous[1])
        #expect(progress.changed)
        let checkpoint = progress.checkpoint()
        #expect(checkpoint.pending == [previous[0]])
        #expect(checkpoint.cursor == SubscriberID(rawValue: "s0009"), "resending does not move the cursor")
        #expect(!progress.changed, "a checkpoint marks the progress written")
    }

    @Test func settlingWhatIsNotPendingChangesNothing() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        _ = progress.checkpoint()
        progress.settle(SubscriberID(rawValue: "x"))
        #expect(!progress.changed)
    }
}
