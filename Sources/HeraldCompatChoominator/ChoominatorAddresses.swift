#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HeraldCore
import NIOCore

/// Every address a host name resolves to, as the original's `-l` bound them all (compat.md §5.1).
enum ChoominatorAddresses {
    /// The distinct IPv4 and IPv6 addresses of `host` with `port`, in the resolver's order.
    /// - Throws: ``ConfigurationError`` naming `key` when the host does not resolve.
    static func resolve(_ host: String, port: Int, key: String) throws(ConfigurationError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_DGRAM
        #else
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            throw ConfigurationError(key: key, "cannot resolve \"\(host)\": \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var texts: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let text = numericHost(current.pointee), !texts.contains(text) { texts.append(text) }
            entry = current.pointee.ai_next
        }
        let addresses = texts.compactMap { try? SocketAddress(ipAddress: $0, port: port) }
        guard !addresses.isEmpty else { throw ConfigurationError(key: key, "\"\(host)\" resolves to no IP address") }
        return addresses
    }

    /// The numeric text of one resolved address (`127.0.0.1`, `::1`).
    private static func numericHost(_ info: addrinfo) -> String? {
        guard let address = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = getnameinfo(address, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
        guard status == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
