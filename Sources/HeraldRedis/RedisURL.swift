/// Where a Redis server is: `redis://[[user]:password@]host[:port][/db]`.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    /// TCP port; default 6379.
    public var port: Int
    /// The database number `SELECT`ed after connecting; default 0.
    public var database: Int
    /// The password sent with `AUTH`, if any. Never part of ``description``.
    public var password: String?

    /// Creates a location.
    public init(host: String, port: Int = 6379, database: Int = 0, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.password = password
    }

    /// Parses `redis://host:port/db`; `nil` when `text` is not such a URL.
    public init?(_ text: String) {
        guard text.hasPrefix("redis://") else { return nil }
        var rest = Substring(text.dropFirst("redis://".count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let number = rest[rest.index(after: slash)...]
            guard number.isEmpty || (number.utf8.count <= 5 && Int(number) != nil) else { return nil }
            database = Int(number) ?? 0
            rest = rest[..<slash]
        }
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            // `user:password` (Redis 6 ACLs) or `:password`; only the password is used, as rs/pushd did.
            password = credentials.firstIndex(of: ":").map { String(credentials[credentials.index(after: $0)...]) } ?? String(credentials)
            rest = rest[rest.index(after: at)...]
        }
        var host = rest
        var port = 6379
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()) else { return nil }
                port = value
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { return nil }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port), database >= 0 else { return nil }
        self.init(host: String(host), port: port, database: database, password: password.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// `redis://host:port/db`, without the password.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(shownHost):\(port)/\(database)"
    }
}
