/// How far an import is, reported after every batch.
public struct PushdImportProgress: Sendable, Equatable {
    /// Subscribers read so far.
    public var done: Int
    /// Subscribers `subscribers` listed when the import started (the total, for the ETA).
    public var total: Int
    /// Subscribers written (or, on a dry run, that would be).
    public var imported: Int
    /// Subscribers skipped.
    public var skipped: Int
    /// Seconds since the import started.
    public var elapsed: Double

    /// Creates a progress report.
    public init(done: Int, total: Int, imported: Int, skipped: Int, elapsed: Double) {
        self.done = done
        self.total = total
        self.imported = imported
        self.skipped = skipped
        self.elapsed = elapsed
    }

    /// Subscribers per second so far.
    public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }

    /// Seconds left at the rate so far, if it can be told.
    public var remaining: Double? {
        guard rate > 0, total >= done else { return nil }
        return Double(total - done) / rate
    }

    /// The one-line bar redrawn on a terminal: `[#####-----]  52% 520000/1000000  imported 519990  skipped 10  41200/s  ETA 0:12`.
    public func bar(width: Int = 30) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let percent = Int((fraction * 100).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + Self.padded(percent, 3) + "% " + counts
    }

    /// The plain line printed every few seconds when standard error is not a terminal.
    public var line: String { "import: " + counts }

    private var counts: String {
        let eta = remaining.map { Self.duration($0) } ?? "?"
        return "\(done)/\(total)  imported \(imported)  skipped \(skipped)  \(Int(rate.rounded()))/s  ETA \(eta)"
    }

    /// `h:mm:ss` or `m:ss`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let mmss = (minutes < 10 && hours > 0 ? "0" : "") + "\(minutes):" + (secs < 10 ? "0" : "") + "\(secs)"
        return hours > 0 ? "\(hours):\(mmss)" : mmss
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
