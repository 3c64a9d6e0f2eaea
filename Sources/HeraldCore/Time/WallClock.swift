#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time as the store keeps it, injected wherever Herald reads the time, so that one
/// clock serves the services, the pipeline and the routes, and tests can drive it.
///
/// Wall time rather than a `Swift.Clock`: it is written to the database (publish times,
/// statistics, lease expiries, retry due times) and compared across restarts.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock reading milliseconds since 1970 from `read`.
    public init(millisecondsSince1970 read: @escaping @Sendable () -> Int64) {
        self.read = read
    }

    /// The system's real-time clock.
    public static let system = WallClock(millisecondsSince1970: {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    })

    /// Milliseconds since 1970.
    public func nowMillis() -> Int64 { read() }

    /// Seconds since 1970.
    public func nowSeconds() -> Int64 { read() / 1000 }
}
