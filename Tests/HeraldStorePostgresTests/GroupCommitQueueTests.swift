import Testing

@testable import HeraldStorePostgres

/// ``GroupCommitQueue``'s rules, as a value: who leads a batch, which writes go in it, and that
/// no write is lost or committed twice.
@Suite("Group commit queue: who leads, which writes go in a batch")
struct GroupCommitQueueTests {
    @Test("a write arriving at an idle queue leads at once, alone")
    func idleWriteLeads() {
        var queue = GroupCommitQueue<Int>(maxBatch: 4, maxLeaders: 1)
        let first = queue.arrive(1)
        #expect(first)
        let followers = queue.followers()
        #expect(followers.isEmpty)
        let next = queue.handOver()
        #expect(next == nil)
        #expect(queue.leaders == 0)
        let second = queue.arrive(2)
        #expect(second, "the place is free again")
    }

    @Test("writes arriving during a commit wait; the oldest leads the next batch, taking the others")
    func waitersFormTheNextBatch() {
        var queue = GroupCommitQueue<Int>(maxBatch: 4, maxLeaders: 1)
        _ = queue.arrive(0)
        _ = queue.followers()
        let waits = (1...3).map { !queue.arrive($0) }
        #expect(waits == [true, true, true])
        let next = queue.handOver()
        #expect(next == 1, "the oldest waiting write leads next")
        #expect(queue.leaders == 1, "the place passed on, not freed")
        let followers = Array(queue.followers())
        #expect(followers == [2, 3])
        #expect(queue.waitingCount == 0)
        let last = queue.handOver()
        #expect(last == nil)
        #expect(queue.leaders == 0)
    }

    @Test("a batch holds at most maxBatch writes, leader included, in arrival order")
    func batchesAreCapped() {
        var queue = GroupCommitQueue<Int>(maxBatch: 3, maxLeaders: 1)
        _ = queue.arrive(0)
        for n in 1...7 { _ = queue.arrive(n) }
        var batches: [[Int]] = []
        while let leader = queue.handOver() {
            batches.append([leader] + queue.followers())
        }
        #expect(batches == [[1, 2, 3], [4, 5, 6], [7]])
        #expect(queue.leaders == 0)
    }

    @Test("with two leaders, a second batch starts while the first commits")
    func twoLeaders() {
        var queue = GroupCommitQueue<Int>(maxBatch: 8, maxLeaders: 2)
        let arrivals = (0...2).map { queue.arrive($0) }
        #expect(arrivals == [true, true, false], "a second batch may run beside the first; a third write waits")
        #expect(queue.leaders == 2)
        let next = queue.handOver()
        #expect(next == 2)
        let none = queue.handOver()
        #expect(none == nil)
        #expect(queue.leaders == 1)
        _ = queue.handOver()
        #expect(queue.leaders == 0)
    }

    @Test("no write is lost or committed twice over many batches")
    func everyWriteOnce() {
        var queue = GroupCommitQueue<Int>(maxBatch: 5, maxLeaders: 1)
        var committed: [Int] = []
        var next = 0
        var leader: Int? = nil
        var leadersSeen = 0
        // Writes arrive in bursts of 0 to 6 between batches.
        for burst in 0..<2_000 {
            for _ in 0..<(burst % 7) {
                if queue.arrive(next) {
                    leadersSeen += leader == nil ? 0 : 1
                    leader = next
                }
                next += 1
            }
            guard let current = leader else { continue }
            committed.append(current)
            committed.append(contentsOf: queue.followers())
            leader = queue.handOver()
        }
        while let current = leader {
            committed.append(current)
            committed.append(contentsOf: queue.followers())
            leader = queue.handOver()
        }
        #expect(leadersSeen == 0, "never two leaders at once")
        #expect(committed == Array(0..<next))
        #expect(queue.leaders == 0 && queue.waitingCount == 0)
    }
}
