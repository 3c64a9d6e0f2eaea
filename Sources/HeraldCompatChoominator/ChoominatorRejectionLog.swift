import Logging
import Synchronization

/// Logs rejected datagrams at most once per source address per minute, so a misbehaving or
/// hostile sender cannot flood the log (datagrams cost it nothing to send).
final class ChoominatorRejectionLog: Sendable {
    /// How long after logging one rejection from an address the next ones are only counted.
    static let period: Duration = .seconds(60)
    /// Most addresses remembered; past it, entries older than ``period`` are forgotten, and if
    /// all are recent the map is cleared (logging a few lines twice is better than unbounded memory).
    static let maxAddresses = 10_000

    private let logger: Logger
    private let lastLogged = Mutex<[String: ContinuousClock.Instant]>([:])

    /// Creates the log.
    init(logger: Logger) {
        self.logger = logger
    }

    /// Logs `rejection` from `address` unless one from it was logged within the period.
    func log(_ rejection: ChoominatorRejection, port: String, address: String) {
        let now = ContinuousClock.now
        let due = lastLogged.withLock { last -> Bool in
            if let previous = last[address], previous.duration(to: now) < Self.period { return false }
            if last.count >= Self.maxAddresses {
                last = last.filter { $0.value.duration(to: now) < Self.period }
                if last.count >= Self.maxAddresses { last.removeAll(keepingCapacity: true) }
            }
            last[address] = now
            return true
        }
        guard due else { return }
        logger.warning(
            "Choominator datagram dropped",
            metadata: ["port": "\(port)", "source": "\(address)", "reason": "\(rejection.reason)", "error": "\(rejection.message)"])
    }
}
