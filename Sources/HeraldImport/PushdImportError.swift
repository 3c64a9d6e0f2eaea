import HeraldRedis

/// Why an import of an rs/pushd database stopped: Redis could not be read, or the store refused a write.
///
/// A bad record never raises one; it is skipped and counted in the ``PushdImportReport``.
public struct PushdImportError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case redis(RedisError)
        case layout(String)
        case store(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// Redis could not be reached or answered a command with an error.
    public static func redis(_ error: RedisError) -> PushdImportError { PushdImportError(.redis(error)) }

    /// A key the import depends on is not what rs/pushd writes (`subscribers` not a sorted set).
    public static func layout(_ reason: String) -> PushdImportError { PushdImportError(.layout(reason)) }

    /// The store failed to write a batch.
    public static func store(_ error: any Error) -> PushdImportError { PushdImportError(.store(String(describing: error))) }

    /// Whether Redis was the cause (unreachable, or an error reply), as opposed to the store.
    public var isRedisFailure: Bool {
        switch kind {
        case .redis, .layout: true
        case .store: false
        }
    }

    /// One line for the operator, naming what could not be read or written.
    public var description: String {
        switch kind {
        case .redis(let error): "cannot read the pushd database: \(error)"
        case .layout(let reason): "not an rs/pushd database: \(reason)"
        case .store(let reason): "cannot write to the store: \(reason)"
        }
    }
}
