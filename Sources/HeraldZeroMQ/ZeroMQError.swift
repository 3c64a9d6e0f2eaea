import CZeroMQ

/// Why a ZeroMQ operation failed.
public struct ZeroMQError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Equatable {
        case system(operation: String, errno: Int32, message: String)
        case closed
        case timedOut
        case cancelled
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A libzmq call failed; `errno` is read now, so call it right after the failure.
    static func lastError(_ operation: String) -> ZeroMQError {
        let code = zmq_errno()
        return ZeroMQError(.system(operation: operation, errno: code, message: String(cString: zmq_strerror(code))))
    }

    /// The socket (or its context) was closed.
    public static let closed = ZeroMQError(.closed)
    /// No message came within the time asked for.
    public static let timedOut = ZeroMQError(.timedOut)
    /// The waiting task was cancelled.
    public static let cancelled = ZeroMQError(.cancelled)

    /// libzmq's error number, for a failed call.
    public var errno: Int32? {
        if case .system(_, let code, _) = kind { code } else { nil }
    }

    /// Whether the socket is gone (closed, or its context terminated).
    public var isClosed: Bool {
        switch kind {
        case .closed: true
        case .system(_, let code, _): code == ETERM || code == ENOTSOCK
        default: false
        }
    }

    public var description: String {
        switch kind {
        case .system(let operation, let code, let message): "\(operation): \(message) (errno \(code))"
        case .closed: "the socket is closed"
        case .timedOut: "timed out"
        case .cancelled: "cancelled"
        }
    }
}
