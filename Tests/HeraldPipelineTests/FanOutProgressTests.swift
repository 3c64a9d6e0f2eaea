import HeraldCore
import HeraldStore
import Testing

@testable import HeraldPipeline

@Suite struct FanOutProgressTests {
    func ids(_ numbers: ClosedRange<Int>) -> [SubscriberID] {
        numbers.map { SubscriberID(rawValue: String(format: "s%04d", $0)) }
    }

    /// The members a checkpoint says are pending, given the audience `all` (ascending).
    func resolve(_ pending: PendingMembers, cursor: SubscriberID?, in all: [SubscriberID]) -> Set<SubscriberID> {
        switch pending {
        case .listed(let ids):
            return Set(ids)
        case .range(let after, let except):
            return Set(all.filter { id in (after.map { id > $0 } ?? true) && cursor.map { id <= $0 } ?? false && !except.contains(id) })
        }
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
        #expect(resolve(checkpoint.pending, cursor: checkpoint.cursor, in: ids(1...9)) == [first[1]])
        #expect(!checkpoint.complete)
    }

    @Test func answersInOrderAreWrittenAsARangeWithTheFewOutOfOrder() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        let page = ids(1...100)
        progress.handOver(page, through: page[99])
        for id in page[0..<40] { progress.settle(id) }
        progress.settle(page[60])
        let checkpoint = progress.checkpoint()
        #expect(checkpoint.pending == .range(after: page[39], except: [page[60]]), "one id written where 59 are pending")
        #expect(resolve(checkpoint.pending, cursor: checkpoint.cursor, in: ids(1...200)) == Set(page[40..<100]).subtracting([page[60]]))
    }

    @Test func manyOutOfOrderAnswersAreWrittenAsAList() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        let page = ids(1...10)
        progress.handOver(page, through: page[9])
        for id in page[1...] where id != page[5] { progress.settle(id) }
        guard case .listed(let listed) = progress.checkpoint().pending else {
            Issue.record("two pending among eight answered out of order are shorter as a list")
            return
        }
        #expect(Set(listed) == [page[0], page[5]])
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
        let checkpoint = progress.checkpoint()
        #expect(checkpoint.complete)
        #expect(checkpoint.pending.isEmpty)
    }

    @Test func resumingKeepsThePreviousPendingUntilSettledAndListsThem() {
        let previous = ids(1...2)
        let resumedAt = SubscriberID(rawValue: "s0009")
        var progress = FanOutProgress(cursor: resumedAt, pending: previous)
        #expect(resolve(progress.checkpoint().pending, cursor: resumedAt, in: ids(1...20)) == Set(previous))
        let page = ids(10...12)
        progress.handOver(page, through: page[2])
        progress.settle(previous[1])
        #expect(progress.changed)
        let checkpoint = progress.checkpoint()
        #expect(resolve(checkpoint.pending, cursor: checkpoint.cursor, in: ids(1...20)) == Set([previous[0]] + page))
        progress.settle(previous[0])
        progress.settle(page[0])
        let later = progress.checkpoint()
        #expect(later.pending == .range(after: page[0], except: []), "once the inherited ones are settled, a range")
        #expect(!progress.changed, "a checkpoint marks the progress written")
    }

    @Test func settlingWhatIsNotPendingChangesNothing() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        _ = progress.checkpoint()
        progress.settle(SubscriberID(rawValue: "x"))
        #expect(!progress.changed)
    }

    @Test func settlingTwiceOrOutOfTurnCountsOnce() {
        var progress = FanOutProgress(cursor: nil, pending: [])
        let page = ids(1...6)
        progress.handOver(page, through: page[5])
        progress.settle(page[3])
        progress.settle(page[3])
        progress.settle(page[0])
        progress.settle(page[0])
        _ = progress.checkpoint()
        progress.settle(page[0])
        progress.settle(page[3])
        progress.settle(SubscriberID(rawValue: "s0003x"))  // between two members, never handed over
        #expect(!progress.changed, "nothing new was settled")
        #expect(progress.pendingCount == 4)
        #expect(resolve(progress.checkpoint().pending, cursor: page[5], in: ids(1...9)) == Set([page[1], page[2], page[4], page[5]]))
        // A page handed over again (a lost race between two readers) adds nothing.
        progress.handOver(page, through: page[5])
        #expect(progress.pendingCount == 4)
        for id in [page[1], page[2], page[4], page[5]] { progress.settle(id) }
        progress.finishReading()
        #expect(progress.isComplete)
    }
}
