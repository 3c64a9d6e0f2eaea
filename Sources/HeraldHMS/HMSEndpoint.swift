import Foundation

/// An origin or URL Herald talks to for Huawei Push Kit: scheme, host and port of a configured URL.
struct HMSEndpoint: Sendable, Equatable {
    /// `https` or `http`.
    let scheme: String
    /// The host name or address, without brackets.
    let host: String
    /// The port, defaulted from the scheme.
    let port: Int
    /// The URL's path, `""` when it has none.
    let path: String

    /// Reads an absolute `http` or `https` URL with a host; `nil` for anything else.
    init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
        self.path = components.path
    }

    /// The host, plus the port when it is not the scheme's default.
    var authority: String {
        let defaultPort = scheme == "https" ? 443 : 80
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// `scheme://authority`, without a path: what the send path is appended to.
    var origin: String {
        "\(scheme)://\(authority)"
    }
}
