/// How far `herald migrate` is, reported after every page written.
public struct StoreMigrationProgress: ImportProgressReport, Equatable {
    /// What is being copied now.
    public var kind: StoreMigrationKind
    /// Rows read so far, all kinds together (subscriptions travel with their subscribers and are not counted here).
    public var done: Int
    /// Rows the source held when the migration started.
    public var total: Int
    /// Rows written: new to the destination, or (subscribers and statistics) written again.
    public var written: Int
    /// Rows not written: already there (a rerun), or refused (see the report).
    public var skipped: Int
    /// Seconds since the migration started.
    public var elapsed: Double

    /// Creates a progress report.
    public init(kind: StoreMigrationKind, done: Int, total: Int, written: Int, skipped: Int, elapsed: Double) {
        self.kind = kind
        self.done = done
        self.total = total
        self.written = written
        self.skipped = skipped
        self.elapsed = elapsed
    }

    /// Rows per second so far.
    public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }

    /// `[#####-----]  52% subscribers 52000/100000  written 52000  skipped 0  41200/s  ETA 0:12`.
    public func bar(width: Int) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let percent = String(Int((fraction * 100).rounded(.down)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(repeating: " ", count: max(0, 3 - percent.count)) + percent + "% " + counts
    }

    /// The plain line printed every few seconds when standard error is not a terminal.
    public var line: String { "migrate: " + counts }

    private var counts: String {
        let eta = rate > 0 && total >= done ? PushdImportProgress.duration(Double(total - done) / rate) : "?"
        return "\(kind.rawValue) \(done)/\(total)  written \(written)  skipped \(skipped)  \(Int(rate.rounded()))/s  ETA \(eta)"
    }
}
