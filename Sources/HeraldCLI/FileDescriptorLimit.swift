#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// The process's limit of open files, raised at start-up.
///
/// Every Server-Sent Events listener, HTTP client and outbound connection is a descriptor, and
/// the soft limit many systems start processes with (1024) is far below what `event_source.
/// max_listeners` allows; the hard limit is what the operator granted, so Herald takes all of it.
enum FileDescriptorLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit and logs both; returns the soft limit
    /// in force afterwards (`nil` if it cannot be read).
    @discardableResult
    static func raiseToHardLimit(logger: Logger) -> UInt64? {
        var limit = rlimit()
        guard getrlimit(resourceNOFILE, &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur)
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resourceNOFILE, &raised) == 0 {
                limit = raised
            } else {
                logger.warning("cannot raise the open-file limit", metadata: ["soft": "\(before)", "hard": "\(limit.rlim_max)", "errno": "\(errno)"])
            }
        }
        logger.debug("open-file limit", metadata: ["soft": "\(limit.rlim_cur)", "hard": "\(limit.rlim_max)", "before": "\(before)"])
        return UInt64(limit.rlim_cur)
    }

    /// `RLIMIT_NOFILE` in the form `getrlimit` takes on this platform.
    #if os(Linux)
    private static let resourceNOFILE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNOFILE = RLIMIT_NOFILE
    #endif
}
