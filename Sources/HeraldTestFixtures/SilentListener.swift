import Foundation

/// A loopback TCP port that takes connections and never answers: the kernel completes each
/// handshake into the listen backlog, and nothing ever reads or writes.
///
/// It stands for a destination that hangs (a push service behind a dead load balancer, a
/// webhook receiver stuck on a lock): a client connects, and then waits for its deadlines.
public struct SilentListener: Sendable {
    private let reserved: ReservedPort

    /// The port.
    public var port: Int { reserved.port }

    /// Binds and listens on 127.0.0.1 at a free port.
    ///
    /// - Throws: ``ProcessExited`` when no socket can be bound.
    public init() throws {
        reserved = try ReservedPort()
        guard reserved.listenWithoutAccepting() else {
            reserved.close()
            throw ProcessExited(log: "cannot listen on loopback")
        }
    }

    /// An `http` URL on this port.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops listening; connections still in the backlog are reset.
    public func close() {
        reserved.close()
    }
}
