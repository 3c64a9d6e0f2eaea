import Synchronization

/// The ids a socket hands out for what it queued: consecutive integers from a random start in
/// [0, 2^32), one counter per socket (compat.md §3.3).
final class Push2mobIDCounter: Sendable {
    private let next: Mutex<Int64>

    /// Starts at `start`, or a random value.
    init(start: Int64 = Int64(UInt32.random(in: .min ... .max))) {
        next = Mutex(start)
    }

    /// The next `count` ids.
    func take(_ count: Int) -> [Int64] {
        next.withLock { next in
            let first = next
            next += Int64(count)
            return Array(first..<first + Int64(count))
        }
    }
}
