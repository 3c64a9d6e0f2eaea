/// A failure of the store itself, as opposed to an answer such as "no such subscriber".
///
/// It lives beside the protocol rather than in a backend because every backend has these
/// failures (ids run out, rows cannot be read back, the engine is too old), and callers tell
/// them apart without knowing which backend they talk to.
///
/// The cases are private so that new ones can be added without breaking callers;
/// compare with the static members (`error == .idExhausted`).
public struct StoreError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case idExhausted
        case corruptRow
        case unsupportedDatabase
        case unavailable
    }

    private let code: Code
    /// Details for logs; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Every freshly drawn subscriber id was taken (§3.1: at most 10 draws, then 500).
    public static let idExhausted = StoreError(.idExhausted, "no free subscriber id after 10 draws")

    /// A stored row cannot be read back (an unknown enum value, undecodable JSON, ...).
    public static let corruptRow = StoreError(.corruptRow, "corrupt row")

    /// A stored row cannot be read back; `detail` says which and why.
    public static func corruptRow(_ detail: String) -> StoreError {
        StoreError(.corruptRow, detail)
    }

    /// The database engine lacks a feature the store needs (for example an SQLite that is too old).
    public static let unsupportedDatabase = StoreError(.unsupportedDatabase, "unsupported database")

    /// The database engine lacks a feature the store needs; `detail` says which.
    public static func unsupportedDatabase(_ detail: String) -> StoreError {
        StoreError(.unsupportedDatabase, detail)
    }

    /// The database cannot be reached now (a connection failed or none was free in time); the
    /// call may succeed later. Callers answer 503 rather than accept work they could not store.
    public static let unavailable = StoreError(.unavailable, "database unavailable")

    /// The database cannot be reached now; `detail` says why (never a password).
    public static func unavailable(_ detail: String) -> StoreError {
        StoreError(.unavailable, detail)
    }

    /// Equal when the kind of failure is the same, whatever the details.
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the kind of failure only, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// The kind of failure and its details.
    public var description: String {
        switch code {
        case .idExhausted: "StoreError.idExhausted: \(detail)"
        case .corruptRow: "StoreError.corruptRow: \(detail)"
        case .unsupportedDatabase: "StoreError.unsupportedDatabase: \(detail)"
        case .unavailable: "StoreError.unavailable: \(detail)"
        }
    }
}
