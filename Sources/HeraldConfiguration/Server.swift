import HeraldCore

extension HeraldConfiguration {
    /// The listeners, the database and access control (`server`).
    public struct Server: Sendable, Equatable {
        /// The HTTP API (`server.http`); default `0.0.0.0:8080`, plain HTTP (`server.http.tls` absent).
        public var http: Endpoint
        /// The rs/pushd UDP event port (`server.udp`); default `nil` (off). When present, `port` is required and `host` defaults to `0.0.0.0`.
        public var udp: Endpoint?
        /// The database URL (`server.database`); default `sqlite:herald.db`. Validated by ``DatabaseLocation/parse(_:key:)``.
        public var database: String
        /// Whether each HTTP request is logged (`server.access_log`); default `false`.
        public var accessLog: Bool
        /// HTTP Basic users by name (`server.auth`); default none. Empty means authentication is off (`pushd-api.md` §2.2).
        public var auth: [String: User]
        /// Source-address allow-lists by realm (`server.acl`): address or CIDR texts; default none.
        ///
        /// Entries are only checked to be non-empty here; the server parses them with the access-list type.
        public var acl: [Realm: [String]]
        /// A token bucket per client for each realm named (`server.rate_limit`); default none: realms not named are not limited.
        public var rateLimit: [Realm: RateLimit]
        /// How long a client may take to send a request's head, from connecting or from the previous
        /// answer (`server.header_timeout`, seconds); default 10 s. A slower client is disconnected.
        public var headerTimeout: Duration
        /// How long a client may take to send a request's body after its head (`server.body_timeout`,
        /// seconds); default 30 s.
        public var bodyTimeout: Duration
        /// How long a kept-alive connection may stay idle (`server.idle_timeout`, seconds); default 60 s.
        public var idleTimeout: Duration

        /// Creates a server section; every argument defaults to the documented default.
        public init(
            http: Endpoint = Endpoint(),
            udp: Endpoint? = nil,
            database: String = "sqlite:herald.db",
            accessLog: Bool = false,
            auth: [String: User] = [:],
            acl: [Realm: [String]] = [:],
            headerTimeout: Duration = .seconds(10),
            bodyTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(60),
            rateLimit: [Realm: RateLimit] = [:]
        ) {
            self.http = http
            self.udp = udp
            self.database = database
            self.accessLog = accessLog
            self.auth = auth
            self.acl = acl
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.idleTimeout = idleTimeout
            self.rateLimit = rateLimit
        }

        /// Reads `server`, or the defaults when it is absent.
        init(section: ConfigSection?) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.server)
            if let http = try section.section("http") {
                self.http = try Endpoint(section: http, defaultHost: "0.0.0.0", defaultPort: 8080, schema: ConfigurationSchema.httpEndpoint)
            }
            if let udp = try section.section("udp") {
                self.udp = try Endpoint(section: udp, defaultHost: "0.0.0.0", defaultPort: nil)
            }
            if let database = try section.string("database") {
                _ = try DatabaseLocation.parse(database, key: section.keyPath("database"))
                self.database = database
            }
            accessLog = try section.bool("access_log") ?? accessLog
            headerTimeout = try section.duration("header_timeout", minimum: .milliseconds(1)) ?? headerTimeout
            bodyTimeout = try section.duration("body_timeout", minimum: .milliseconds(1)) ?? bodyTimeout
            idleTimeout = try section.duration("idle_timeout", minimum: .milliseconds(1)) ?? idleTimeout
            for (name, user) in try section.entrySections("auth") {
                guard !name.isEmpty, !name.contains(":") else {
                    // HTTP Basic splits user and password at the first colon.
                    throw ConfigurationError(key: user.path, "a user name must be non-empty and contain no colon")
                }
                auth[name] = try User(section: user)
            }
            if let acl = try section.section("acl") {
                for key in acl.values.keys where Realm(rawValue: key) == nil {
                    let hint = KeySuggestion.nearest(to: key, among: Set(ConfigurationSchema.acl.keys)).map { "did you mean \"\($0)\"? " } ?? ""
                    throw ConfigurationError(key: acl.keyPath(key), "unknown realm (\(hint)expected one of \(RealmNames.list))")
                }
                for realm in Realm.allCases {
                    guard let entries = try acl.stringList(realm.rawValue) else { continue }
                    for entry in entries where entry.trimmingWhitespace().isEmpty {
                        throw ConfigurationError(key: acl.keyPath(realm.rawValue), "entries must be addresses or CIDR blocks, got an empty entry")
                    }
                    self.acl[realm] = entries.map { $0.trimmingWhitespace() }
                }
            }
            if let rateLimit = try section.section("rate_limit") {
                self.rateLimit = try RateLimit.limits(section: rateLimit)
            }
        }
    }
}
