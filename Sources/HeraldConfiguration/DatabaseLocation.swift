import HeraldCore

/// Where the store lives, from `server.database` or `--database`.
///
/// Accepted forms: `sqlite:PATH`, `sqlite://PATH` (so `sqlite:///var/lib/herald.db` is absolute),
/// `postgres://…`, `postgresql://…`, and a bare path, which means SQLite.
public enum DatabaseLocation: Sendable, Equatable {
    /// An SQLite database file (`:memory:` for an in-memory database).
    case sqlite(path: String)
    /// A PostgreSQL database, the URL as given (`postgres://user:password@host:5432/dbname`).
    case postgres(url: String)

    /// Parses a database URL or path; errors name `key` (`server.database`, or `--database` for the flag).
    public static func parse(_ text: String, key: String = "server.database") throws(ConfigurationError) -> DatabaseLocation {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw ConfigurationError(key: key, "must not be empty") }
        let lowered = trimmed.lowercased()
        for prefix in ["postgres://", "postgresql://"] where lowered.hasPrefix(prefix) {
            guard trimmed.count > prefix.count else {
                throw ConfigurationError(key: key, "a PostgreSQL URL needs a host: postgres://user:password@host:5432/dbname")
            }
            return .postgres(url: trimmed)
        }
        // `sqlite://` before `sqlite:`, which is its prefix.
        for prefix in ["sqlite://", "sqlite:"] where lowered.hasPrefix(prefix) {
            let path = String(trimmed.dropFirst(prefix.count))
            guard !path.isEmpty else { throw ConfigurationError(key: key, "an SQLite URL needs a path: sqlite:herald.db") }
            return .sqlite(path: path)
        }
        if let scheme = urlScheme(of: trimmed) {
            throw ConfigurationError(
                key: key,
                "unsupported database \"\(scheme)\" (use sqlite:PATH, postgres://… or a file path)"
            )
        }
        return .sqlite(path: trimmed)
    }

    /// The scheme of `text` when it looks like `scheme:` followed by `//`, else `nil`.
    ///
    /// Only `scheme://` counts, so that a file name containing a colon (`data:1.db`) stays a path.
    private static func urlScheme(of text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        guard let first = scheme.unicodeScalars.first, isLetter(first) else { return nil }
        let valid = scheme.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
        return valid ? String(scheme) : nil
    }
}
