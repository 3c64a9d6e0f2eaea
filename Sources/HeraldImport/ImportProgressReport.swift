/// What an import's progress display draws, whatever is imported (`herald import pushd`,
/// `herald migrate`).
public protocol ImportProgressReport: Sendable {
    /// Items done so far.
    var done: Int { get }
    /// Items expected in all.
    var total: Int { get }
    /// The one-line bar redrawn on a terminal.
    func bar(width: Int) -> String
    /// The plain line printed every few seconds when standard error is not a terminal.
    var line: String { get }
}

extension PushdImportProgress: ImportProgressReport {}
