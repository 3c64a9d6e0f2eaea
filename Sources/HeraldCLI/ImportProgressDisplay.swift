import Foundation
import HeraldImport
import Synchronization

/// Shows an import's (or a migration's) progress on standard error: on a terminal, one bar redrawn in place (at
/// most five times a second, so drawing never slows the import); otherwise a plain line every
/// five seconds, which a log collector can keep.
final class ImportProgressDisplay: Sendable {
    private let terminal: Bool
    private let state = Mutex<State>(State())

    private struct State {
        var lastShown: ContinuousClock.Instant?
        var drawn = false
    }

    /// Creates a display; `terminal` says whether standard error is one.
    init(terminal: Bool) {
        self.terminal = terminal
    }

    /// Shows `progress` if enough time passed since the last time.
    func show(_ progress: some ImportProgressReport) {
        let now = ContinuousClock.now
        let interval: Duration = terminal ? .milliseconds(200) : .seconds(5)
        let text: String? = state.withLock { state in
            if let last = state.lastShown, now - last < interval, progress.done < progress.total { return nil }
            state.lastShown = now
            state.drawn = true
            return terminal ? "\r" + progress.bar(width: 30) + "\u{1B}[K" : progress.line + "\n"
        }
        if let text { FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// Ends the bar's line, so that what follows starts on a line of its own.
    func finish() {
        let drawn = state.withLock { $0.drawn }
        if terminal && drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
