#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time as the store keeps it.
public enum Clock {
    /// Milliseconds since 1970.
    public static func nowMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Seconds since 1970.
    public static func nowSeconds() -> Int64 { nowMillis() / 1000 }
}
