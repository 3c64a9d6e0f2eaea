/// A host and port that channel URIs may point at besides the service's own hosts: a simulator or proxy.
public struct ChannelOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The host, lower-cased, without IPv6 brackets.
    public var host: String
    /// The port, the scheme's default when the URL names none.
    public var port: Int

    /// Creates an origin.
    public init(host: String, port: Int) {
        self.host = host.lowercased()
        self.port = port
    }

    /// The origin of an absolute `http` or `https` URL (`https://127.0.0.1:9445/accesstoken.srf`), if it has one.
    public init?(url: String) {
        let scheme: String
        let rest: Substring
        if url.lowercased().hasPrefix("https://") {
            scheme = "https"
            rest = url.dropFirst(8)
        } else if url.lowercased().hasPrefix("http://") {
            scheme = "http"
            rest = url.dropFirst(7)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        self.init(scheme: scheme, authority: authority)
    }

    /// The origin of `authority` (`host`, `host:port`, `[::1]:port`) under `scheme`; `nil` when malformed or with user info.
    init?(scheme: String, authority: Substring) {
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
