import Foundation

/// A loopback TCP port that takes connections and never answers: the kernel completes each
/// handshake into the listen backlog, and nothing ever reads or writes.
///
/// It stands for a destination that hangs (a push service behind a dead load balancer, a
/// webhook receiver stuck on a lock): a client connects, and then waits for its deadlines.
public struct SilentListener: Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    /// Binds and listens on 127.0.0.1 at a free port.
    ///
    /// - Throws: ``ProcessExited`` when no socket can be bound.
    public init() throws {
        let descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = descriptor >= 0 && withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, listen(descriptor, 4096) == 0 else {
            if descriptor >= 0 { Foundation.close(descriptor) }
            throw ProcessExited(log: "cannot listen on loopback")
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
    }

    /// An `http` URL on this port.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops listening; connections still in the backlog are reset.
    public func close() {
        Foundation.close(descriptor)
    }
}
