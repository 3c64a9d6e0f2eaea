#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The configured apps, looked up by a device's `app_id` (compat.md §8.1): an exact name wins,
/// otherwise exactly one glob (`*` any run, `?` one character, as `fnmatch` reads them) must
/// match.
struct MatrixAppTable: Sendable {
    /// What a lookup found.
    enum Match: Sendable {
        /// The app of that id.
        case app(MatrixApp)
        /// No app is configured for it: its pushkeys are rejected.
        case unknown
        /// Several globs match and no exact name does: its pushkeys are rejected, since any choice
        /// would be a guess.
        case ambiguous([String])
    }

    private let exact: [String: MatrixApp]
    private let globs: [MatrixApp]

    /// A table of `apps`; a pattern with `*`, `?` or `[` is a glob.
    init(_ apps: [MatrixApp]) {
        var exact: [String: MatrixApp] = [:]
        var globs: [MatrixApp] = []
        for app in apps {
            if app.pattern.contains(where: { "*?[".contains($0) }) { globs.append(app) } else { exact[app.pattern] = app }
        }
        self.exact = exact
        self.globs = globs
    }

    /// The app of `appID`.
    func match(_ appID: String) -> Match {
        if let app = exact[appID] { return .app(app) }
        let matching = globs.filter { fnmatch($0.pattern, appID, 0) == 0 }
        switch matching.count {
        case 0: return .unknown
        case 1: return .app(matching[0])
        default: return .ambiguous(matching.map(\.pattern))
        }
    }
}
