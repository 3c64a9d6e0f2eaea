import Foundation

/// An origin or URL a provider talks to (a push service, its token endpoint): scheme, host and port of a
/// configured URL.
public struct ServiceEndpoint: Sendable, Equatable {
    /// `https` or `http`.
    public let scheme: String
    /// The host name or address, without brackets.
    public let host: String
    /// The port, defaulted from the scheme.
    public let port: Int
    /// The URL's path, `""` when it has none.
    public let path: String

    /// Reads an absolute `http` or `https` URL with a host; `nil` for anything else.
    public init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
        self.path = components.path
    }

    /// The host, plus the port when it is not the scheme's default.
    public var authority: String {
        let defaultPort = scheme == "https" ? 443 : 80
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// `scheme://authority`, without a path: what the send path is appended to.
    public var origin: String {
        "\(scheme)://\(authority)"
    }
}
