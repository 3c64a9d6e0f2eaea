import Foundation

/// A loopback TCP port held by a socket that is bound but not listening.
///
/// While it is held, connecting to the port is refused at once and no other socket can bind
/// it; ``close()`` releases it.
public struct ReservedPort: Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    /// Binds a socket to `port` on 127.0.0.1 (0: the kernel's choice).
    ///
    /// - Throws: ``ProcessExited`` when the port cannot be bound.
    public init(port: Int = 0) throws {
        let descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = descriptor >= 0 && withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            if descriptor >= 0 { Foundation.close(descriptor) }
            throw ProcessExited(log: "cannot bind port \(port) on loopback")
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
    }

    /// Starts listening without ever accepting: the kernel completes handshakes into the backlog
    /// (``SilentListener``).
    func listenWithoutAccepting() -> Bool {
        listen(descriptor, 4096) == 0
    }

    /// Releases the port.
    public func close() {
        Foundation.close(self.descriptor)
    }
}
