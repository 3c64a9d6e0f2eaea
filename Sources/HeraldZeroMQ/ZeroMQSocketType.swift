import CZeroMQ

/// The socket patterns Herald uses.
public enum ZeroMQSocketType: Sendable {
    /// A reply socket: receives a request, then must send exactly one reply.
    case reply
    /// A request socket: sends a request, then must receive exactly one reply (clients, tests).
    case request

    var rawValue: Int32 {
        switch self {
        case .reply: ZMQ_REP
        case .request: ZMQ_REQ
        }
    }
}
