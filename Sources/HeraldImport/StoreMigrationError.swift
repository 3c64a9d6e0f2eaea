/// Why `herald migrate` stopped: the source could not be read, or the destination refused a write.
///
/// A count that differs at the end is not an error but the report's verdict
/// (``StoreMigrationReport/mismatches``).
public struct StoreMigrationError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case source(String)
        case destination(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The source store failed to read a page.
    public static func source(_ error: any Error) -> StoreMigrationError { StoreMigrationError(.source(String(describing: error))) }

    /// The destination store failed to write a page.
    public static func destination(_ error: any Error) -> StoreMigrationError {
        StoreMigrationError(.destination(String(describing: error)))
    }

    /// One line for the operator, naming the side that failed.
    public var description: String {
        switch kind {
        case .source(let reason): "cannot read the source database: \(reason)"
        case .destination(let reason): "cannot write to the destination database: \(reason)"
        }
    }
}
