import Synchronization

/// A simulator's statistics and what it recorded of the requests it accepted: their tokens and full records.
///
/// It has a lock of its own, apart from the simulator's state, because counting and recording never need the device
/// state or the seeded generator; each critical section is an increment or an append.
final class SimulatorRecorder<Statistics: SimulatorRequestStatistics, Record: Sendable>: Sendable {
    private struct Recording {
        var statistics = Statistics()
        var tokens: [String] = []
        var records: [Record] = []
    }

    private let recording = Mutex(Recording())
    /// Long benchmarks turn token recording off so that memory stays flat.
    private let recordsTokens: Bool

    /// Creates a recorder with every counter at 0; `recordTokens` decides whether accepted tokens are kept.
    init(recordTokens: Bool) {
        self.recordsTokens = recordTokens
    }

    /// Counts an arriving request, whatever its outcome will be.
    func countRequest() {
        self.recording.withLock { $0.statistics.requests += 1 }
    }

    /// Counts an accepted request, keeping `token` when tokens are recorded and `record` when there is one.
    func recordAccepted(token: String?, record: Record?) {
        self.recording.withLock { recording in
            recording.statistics.accepted += 1
            if self.recordsTokens, let token {
                recording.tokens.append(token)
            }
            if let record {
                recording.records.append(record)
            }
        }
    }

    /// Counts an error answer under `key`.
    func recordRejection(_ key: Statistics.RejectionKey) {
        self.recording.withLock { $0.statistics.rejections[key, default: 0] += 1 }
    }

    /// Runs `body` on the statistics under the lock, for the counters of the simulator's own.
    func withStatistics<Result>(_ body: (inout Statistics) -> Result) -> Result {
        self.recording.withLock { body(&$0.statistics) }
    }

    /// A copy of the statistics.
    var statistics: Statistics {
        self.recording.withLock { $0.statistics }
    }

    /// Requests received so far.
    var requestCount: Int {
        self.recording.withLock { $0.statistics.requests }
    }

    /// Requests accepted so far.
    var acceptedCount: Int {
        self.recording.withLock { $0.statistics.accepted }
    }

    /// The token of every accepted request that had one, in order, duplicates kept (empty when tokens are not
    /// recorded).
    func acceptedTokens() -> [String] {
        self.recording.withLock { $0.tokens }
    }

    /// Every record of an accepted request, in order.
    func accepted() -> [Record] {
        self.recording.withLock { $0.records }
    }

    /// Forgets the recorded tokens and records; the counters are kept.
    func clearRecords() {
        self.recording.withLock { recording in
            recording.tokens.removeAll()
            recording.records.removeAll()
        }
    }
}
