import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a destination's host to every address the system resolver gives, so that each one can be checked
/// before a connection is opened.
enum DestinationResolver {
    /// Why a host could not be resolved.
    struct Failure: Error, CustomStringConvertible {
        /// `getaddrinfo`'s error text.
        var reason: String
        var description: String { "cannot resolve host: \(reason)" }
    }

    /// Threads of their own for `getaddrinfo`, which blocks: on an event loop it would stall every connection of
    /// the loop, and on NIO's shared pool it would wait behind (and hold up) whatever else blocks there.
    private static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    /// The addresses of `host` (a name or a literal address) on `port`, in the resolver's order.
    ///
    /// A literal address is its own answer, at once; a name is resolved by `getaddrinfo` on ``threads``.
    static func resolve(host: String, port: Int, on eventLoop: any EventLoop) -> EventLoopFuture<[SocketAddress]> {
        if let literal = try? SocketAddress(ipAddress: host, port: port) {
            return eventLoop.makeSucceededFuture([literal])
        }
        return threads.runIfActive(eventLoop: eventLoop) {
            try addresses(host: host, port: port)
        }
    }

    private static func addresses(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var result: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { result.append(SocketAddress($0.pointee, host: host)) }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { result.append(SocketAddress($0.pointee, host: host)) }
                default:
                    break
                }
            }
            cursor = info.pointee.ai_next
        }
        return result
    }
}
