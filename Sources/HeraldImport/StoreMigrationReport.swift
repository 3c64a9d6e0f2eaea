import HeraldStore

/// What `herald migrate` did, per kind of row: how many the source held, how many were copied
/// or skipped, and the verification: how many the destination should and does hold.
public struct StoreMigrationReport: Sendable, Equatable {
    /// The counts of one kind of row.
    public struct Line: Sendable, Equatable {
        /// Rows the source held at the end.
        public var source = 0
        /// Rows written: new to the destination, or (subscribers, subscriptions and statistics, which
        /// are made equal to the source) written again.
        public var written = 0
        /// Rows read but not written: already there (a rerun), or refused.
        public var skipped = 0
        /// Rows the destination refused by rule, which it is therefore not expected to hold.
        public var refused = 0
        /// Rows the destination holds at the end.
        public var destination = 0

        /// What the destination should hold: the source's rows but those refused.
        public var expected: Int { source - refused }
        /// Whether the destination holds what it should.
        public var matches: Bool { destination == expected }
    }

    /// The counts per kind.
    public var lines: [StoreMigrationKind: Line] = Dictionary(uniqueKeysWithValues: StoreMigrationKind.allCases.map { ($0, Line()) })
    /// Subscribers refused because another id holds their `(proto, identity)` in the destination (a few ids).
    public var conflictExamples: [String] = []
    /// Seconds the copy took.
    public var elapsed: Double = 0
    /// Whether the source's counts changed while it was copied (a server still using it): rows
    /// may then be missing even where the counts agree.
    public var sourceChanged = false

    /// How many ids ``conflictExamples`` keeps.
    public static let exampleLimit = 5

    /// An empty report.
    public init() {}

    /// The kinds whose destination count differs from what it should be.
    public var mismatches: [StoreMigrationKind] { StoreMigrationKind.allCases.filter { !(lines[$0]?.matches ?? true) } }

    /// Whether the destination is a verified copy: every count as it should be, from a source that did not change.
    public var verified: Bool { mismatches.isEmpty && !sourceChanged }

    /// Fills in the verification from both stores' counts (the feedback log, which they leave
    /// out, is filled in by the caller).
    mutating func verify(source: StoreCounts, destination: StoreCounts) {
        for (kind, pick) in Self.counted {
            lines[kind, default: Line()].source = pick(source)
            lines[kind, default: Line()].destination = pick(destination)
        }
    }

    private static let counted: [(StoreMigrationKind, @Sendable (StoreCounts) -> Int)] = [
        (.subscribers, { $0.subscribers }), (.subscriptions, { $0.subscriptions }), (.events, { $0.events }), (.jobs, { $0.jobs }),
        (.deliveries, { $0.retries }), (.deadLetters, { $0.deadLetters }),
    ]

    /// The table printed at the end, and the verdict.
    public var summary: String {
        var rows = [["", "source", "written", "skipped", "destination", ""]]
        for kind in StoreMigrationKind.allCases {
            let line = lines[kind] ?? Line()
            let verdict = line.matches ? "ok" : "MISMATCH (expected \(line.expected))"
            rows.append([kind.rawValue, "\(line.source)", "\(line.written)", "\(line.skipped)", "\(line.destination)", verdict])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        var text = ["Migration finished in \(PushdImportProgress.duration(elapsed))."]
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                // Names left-aligned, numbers right-aligned, the verdict as it is.
                return column == 0 || column == row.count - 1 ? cell + pad : pad + cell
            }
            text.append(cells.joined(separator: "  ").trimmingTrailingSpaces())
        }
        if let subscribers = lines[.subscribers], subscribers.refused > 0 {
            text.append(
                "\(subscribers.refused) subscribers not copied: another id holds their (proto, token) in the destination"
                    + " (e.g. \(conflictExamples.joined(separator: ", ")))")
        }
        if let events = lines[.events], events.refused > 0 {
            text.append("\(events.refused) statistics rows not copied: their event has no subscription or their subscriber is gone")
        }
        text.append("(written: new to the destination, or subscribers and statistics made equal to the source again;"
            + " skipped: already in the destination, or refused)")
        let mismatched = mismatches
        if sourceChanged {
            text.append("The source changed while it was copied: stop the server that uses it, then run the migration again.")
        }
        if !mismatched.isEmpty {
            text.append("Verification failed: the destination's count differs for " + mismatched.map(\.rawValue).joined(separator: ", ") + ".")
        } else if sourceChanged {
            text.append("Verification failed: the source changed.")
        } else {
            text.append("Verified: the destination holds every row of the source.")
        }
        return text.joined(separator: "\n")
    }
}

extension String {
    /// The string without trailing spaces.
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
