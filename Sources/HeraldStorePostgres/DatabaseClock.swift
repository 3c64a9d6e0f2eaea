#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HeraldCore
import Synchronization

/// The database server's time, read without a round trip: the offset between this process's
/// monotonic clock and the server's clock is measured now and then, and each reading adds it to
/// the monotonic clock.
///
/// Every node reckons leases and due times in this one clock, so nodes whose own clocks
/// disagree still agree on when a lease expires. Until the first measurement the offset is the
/// system clock's, so the store is usable (as a one-machine store would be) before it connects.
final class DatabaseClock: Sendable {
    /// Server time minus monotonic time, in milliseconds.
    private let offset: Atomic<Int64>

    init() {
        offset = Atomic(WallClock.system.nowMillis() - Self.monotonicMillis())
    }

    /// The clock every part of Herald reads.
    var wallClock: WallClock {
        WallClock(millisecondsSince1970: { [self] in Self.monotonicMillis() + offset.load(ordering: .relaxed) })
    }

    /// Records a measurement: the server said `serverMillis` between local monotonic times
    /// `before` and `after`; the midpoint is the best estimate of when it read its clock.
    func correct(serverMillis: Int64, before: Int64, after: Int64) {
        offset.store(serverMillis - (before + (after - before) / 2), ordering: .relaxed)
    }

    /// Milliseconds of the monotonic clock (never steps back when the system's clock is set).
    static func monotonicMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
