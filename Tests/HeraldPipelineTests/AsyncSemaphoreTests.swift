import Synchronization
import Testing

@testable import HeraldPipeline

@Suite struct AsyncSemaphoreTests {
    @Test func waitersAreServedInOrderAsPermitsReturn() async throws {
        let semaphore = AsyncSemaphore(capacity: 3)
        try await semaphore.acquire(3)
        #expect(semaphore.available == 0)
        #expect(!semaphore.tryAcquire())
        let order = OrderLog()
        let first = Task { try await semaphore.acquire(2); order.append(1) }
        while semaphore.waiting < 1 { await Task.yield() }
        let second = Task { try await semaphore.acquire(1); order.append(2) }
        while semaphore.waiting < 2 { await Task.yield() }
        semaphore.release(1)
        #expect(semaphore.waiting == 2, "the first waiter needs two: the second waits behind it")
        #expect(order.values.isEmpty)
        // One permit at a time, so that each waiter runs alone: granted together, the two tasks
        // would append in whatever order the scheduler ran them.
        semaphore.release(1)
        try await first.value
        #expect(order.values == [1], "the first waiter got its two permits; the second waits for one more")
        semaphore.release(1)
        try await second.value
        #expect(order.values == [1, 2])
        #expect(semaphore.available == 0)
        semaphore.release(3)
        #expect(semaphore.isIdle)
    }

    @Test func aCancelledWaiterTakesNothing() async throws {
        let semaphore = AsyncSemaphore(capacity: 1)
        try await semaphore.acquire()
        let waiter = Task { try await semaphore.acquire() }
        while semaphore.waiting < 1 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        semaphore.release()
        #expect(semaphore.available == 1)
        #expect(semaphore.isIdle)
    }

    @Test func requestsAboveTheCapacityTakeAllOfIt() async throws {
        let semaphore = AsyncSemaphore(capacity: 2)
        try await semaphore.acquire(10)
        #expect(semaphore.available == 0)
    }
}

/// Values appended from several tasks.
final class OrderLog: Sendable {
    private let state = Mutex<[Int]>([])
    func append(_ value: Int) { state.withLock { $0.append(value) } }
    var values: [Int] { state.withLock { $0 } }
}
