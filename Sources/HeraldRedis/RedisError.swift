/// Why a Redis command failed.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Equatable {
        case connection(String)
        case server(String)
        case closed
        case unexpectedReply(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The server could not be reached, or the connection broke (the next command reconnects).
    public static func connection(_ reason: String) -> RedisError { RedisError(.connection(reason)) }
    /// The server answered with an error reply (`WRONGTYPE ...`, `ERR unknown command`); the connection stays usable.
    public static func server(_ message: String) -> RedisError { RedisError(.server(message)) }
    /// The connection was closed by its owner.
    public static let closed = RedisError(.closed)
    /// A reply of a type this client does not read.
    public static func unexpectedReply(_ reason: String) -> RedisError { RedisError(.unexpectedReply(reason)) }

    /// Whether the failure was the connection's (the server may be back later), not the command's.
    public var isConnectionFailure: Bool {
        if case .connection = kind { true } else { false }
    }

    /// The server's error text, for an error reply.
    public var serverMessage: String? {
        if case .server(let message) = kind { message } else { nil }
    }

    public var description: String {
        switch kind {
        case .connection(let reason): "redis connection: \(reason)"
        case .server(let message): "redis: \(message)"
        case .closed: "redis connection closed"
        case .unexpectedReply(let reason): "redis: unexpected reply (\(reason))"
        }
    }
}
